// screenshot.h: read the app's own framebuffer back, judge it, and save it as PNG.
// Used by the native smoke test (--screenshot) and by the README's screenshot.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wlui {

struct Image {
    int w = 0, h = 0;
    std::vector<uint8_t> rgba;   // top row first
};

Image read_framebuffer(int w, int h);             // the current GL back buffer
int distinct_colours(const Image& img, int cap);  // counts up to `cap` distinct pixels
bool write_png(const std::string& path, const Image& img);
std::vector<uint8_t> encode_png(const Image& img);  // the PNG file's bytes, for a download
Image crop(const Image& img, int x, int y, int w, int h);   // the caller keeps the rectangle inside

}  // namespace wlui
