// app.h: the WaferLab app — menu bar, mesh canvas, windows — independent of the platform.
// main.cpp owns SDL/GL and calls frame() once per frame; the JS hook calls call().
#pragma once
#include "engine/fabric/mesh.h"
#include "ui/code_editor.h"
#include "ui/compare_window.h"
#include "ui/kernel_doc.h"
#include "ui/mesh_canvas.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace wlui {

struct AppOptions {
    int mesh_w = 8, mesh_h = 8;
    std::string asset_dir = ".";         // holds examples/ (and later lessons/, models/)
    std::string example;                 // opened at start when set
};

class App {
public:
    explicit App(const AppOptions& opt);

    void frame();                        // builds one ImGui frame (between NewFrame and Render)

    // The scripting surface shared by window.waferlab and the tests: method name + JSON args.
    // Unknown methods and bad arguments return {"error": "..."}; nothing throws out.
    nlohmann::json call(const std::string& method, const nlohmann::json& args);
    nlohmann::json state() const;

    bool quit_requested() const { return quit_; }
    uint64_t frames() const { return frame_; }

private:
    void menu_bar();
    void status_bar();
    void about_window();
    void shortcuts();
    void editor_window();
    void discard_popup();
    std::vector<std::string> example_names() const;
    std::string models_dir() const { return asset_dir_ + "/models"; }
    void load_example(const std::string& name);   // throws on a missing file
    wl::Mesh mesh_;
    MeshCanvas canvas_;
    KernelDoc doc_;                      // the kernel being edited
    CodeEditor editor_;
    std::string asset_dir_;
    std::string example_;                // the loaded example's name; "" after a new file
    std::string pending_example_;        // waiting for "discard unsaved edits?"
    bool show_editor_ = false;
    CompareWindow compare_;
    bool show_compare_ = false;
    uint64_t frame_ = 0;
    bool show_about_ = false;
    bool show_demo_ = false;
    bool quit_ = false;
};

}  // namespace wlui
