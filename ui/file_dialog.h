// file_dialog.h: the desktop's "open a file" dialog for the native app, run as a child process
// so the app keeps drawing while it is open. Linux desktops ship one of zenity (GNOME) or kdialog
// (KDE); the first on PATH is used, as tinyfiledialogs does. tools/setup does not install one (zenity
// brings WebKitGTK, which neither the build nor the tests need): `apt install zenity` adds it.
// WAFERLAB_FILE_DIALOG names another program taking zenity's arguments (tests). Without any, the
// windows keep their typed paths and say why there is no dialog. Not in the WebAssembly build: the
// page's file picker does this there.
//
//   FileDialog d;
//   if (!d.open("Open GPT-2 weights", {"*.bin", "*.ckpt"}, &why)) show(why);
//   ...every frame:
//   if (auto path = d.poll()) use(*path);   // "" when the dialog was cancelled
#pragma once
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace wlui {

class FileDialog {
public:
    FileDialog() = default;
    FileDialog(const FileDialog&) = delete;
    FileDialog& operator=(const FileDialog&) = delete;
    ~FileDialog();   // a dialog still open is closed

    // The dialog program that open() runs: WAFERLAB_FILE_DIALOG, else zenity or kdialog on PATH; "" when none.
    static std::string program();
    // Starts the dialog: title, and the file patterns it offers ("*.bin"). False, with *why, when no
    // dialog program is there or it cannot start, or one is open already.
    bool open(const std::string& title, const std::vector<std::string>& patterns, std::string* why);
    bool running() const { return pid_ > 0; }
    // Once the dialog has closed: the chosen path, or "" when it was cancelled (or failed: error()).
    // nullopt while it is open, and when none was opened.
    std::optional<std::string> poll();
    const std::string& error() const { return error_; }   // the last dialog's failure, "" if none

private:
    void drain();        // what the child wrote so far
    pid_t pid_ = -1;
    int out_ = -1;       // the read end of the child's stdout
    std::string text_;   // what it wrote
    std::string error_;
};

}  // namespace wlui
