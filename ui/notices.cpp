// notices.cpp: see notices.h.
#include "ui/notices.h"

#include <algorithm>

namespace wlui {

void Notices::add(const std::string& text, About about) {
    for (const Item& i : items_)
        if (i.text == text) return;
    items_.push_back({text, about});
}

void Notices::training_run(uint64_t run_id) {
    if (run_id == run_id_) return;
    run_id_ = run_id;
    items_.erase(std::remove_if(items_.begin(), items_.end(), [](const Item& i) { return i.about == About::Training; }), items_.end());
}

std::vector<std::string> Notices::texts() const {
    std::vector<std::string> out;
    for (const Item& i : items_) out.push_back(i.text);
    return out;
}

}  // namespace wlui
