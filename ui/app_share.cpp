// app_share.cpp: App methods for share links — the state a link carries (share_state), opening
// one (open_share) without losing the user's work, and bringing that work back. The format is
// ui/share_state.h; the page packs it into the URL hash and unpacks it (web/waferlab-share.js).
#include "ui/app.h"
#include "ui/storage.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

SharedState App::share_state() const {
    SharedState s;
    s.file = doc_.name();
    s.text = doc_.buffer().text();
    s.example = example_;
    s.lesson = show_lessons_ ? lessons_.current_number() : 0;
    s.mesh_w = mesh().w, s.mesh_h = mesh().h;
    s.cycle = runner_.cycle();
    s.colouring = mode_name(canvas_.settings().mode);
    if (auto p = canvas_.selected()) s.pe = std::pair{p->x, p->y};
    s.run_mode = runner_.run_mode();
    s.optimise = doc_.optimise();
    return s;
}

void App::open_share(const SharedState& s) {
    // Unsaved work the link would replace is put aside first, where File > Restore finds it.
    if (doc_.buffer().modified() && storage::enabled()) {
        std::string err;
        if (!storage::write(kBeforeShareKey, workspace_to_json(workspace()), &err))
            throw std::runtime_error("your unsaved edits to " + doc_.name() + " could not be put aside (" + err +
                                     "), so the link was not opened");
        files_.before_share = true;
        notice("Opened a shared link. Your unsaved edits to " + doc_.name() +
               " were put aside: File > Restore edits from before the link brings them back.");
    }
    // "Modified" as restore() rebuilds it: relative to the example's own text, when it is one we ship.
    Workspace ws = workspace();
    ws.file = s.file;
    ws.text = s.text;
    ws.example.clear();
    ws.modified = true;   // a kernel that lives only in a link is unsaved work
    const auto names = example_names();
    if (!s.example.empty() && std::find(names.begin(), names.end(), s.example) != names.end()) {
        std::ifstream in(asset_dir_ + "/examples/" + s.example + ".wk", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        ws.example = s.example;
        ws.modified = ss.str() != s.text;
    }
    ws.lesson = s.lesson;
    ws.path.clear();
    runner_.unload();   // nothing of the previous kernel stays loaded, even if the link's does not compile
    gate_.unloaded();
    runner_.set_run_mode(s.run_mode);
    doc_.set_optimise(s.optimise);   // before restore() compiles the link's kernel
    canvas_.select(std::nullopt);
    show_lessons_ = false;
    restore(ws);
    if (!runner_.loaded()) empty_mesh_ = wl::Mesh{s.mesh_w, s.mesh_h};
    refit_ = true;
    canvas_.configure({{"mode", s.colouring}});
    if (s.pe && mesh().contains(s.pe->first, s.pe->second)) canvas_.select(PeCoord{s.pe->first, s.pe->second});
    if (s.cycle > 0 && runner_.loaded() && gate_.matches(doc_.buffer().version())) runner_.step(s.cycle);
}

void App::restore_before_share() {
    std::string err;
    const auto text = storage::read(kBeforeShareKey, &err);
    if (!text) throw std::runtime_error(err.empty() ? "nothing was put aside" : err);
    std::string why;
    const auto ws = workspace_from_json(*text, &why);
    if (!ws) throw std::runtime_error("what was put aside could not be read (" + why + ")");
    runner_.unload();
    gate_.unloaded();
    canvas_.select(std::nullopt);
    restore(*ws);
    storage::remove(kBeforeShareKey);
    files_.before_share = false;
}

void App::check_before_share() {
    std::string err;
    files_.before_share = storage::read(kBeforeShareKey, &err).has_value();
}

}  // namespace wlui
