#include "ui/screenshot.h"

#include <algorithm>
#include <unordered_set>

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <SDL_opengl.h>
#endif

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace wlui {

Image read_framebuffer(int w, int h) {
    Image img{w, h, std::vector<uint8_t>(size_t(w) * size_t(h) * 4)};
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, img.rgba.data());
    // GL's rows run bottom-up; images run top-down.
    const size_t row = size_t(w) * 4;
    for (int y = 0; y < h / 2; ++y)
        std::swap_ranges(img.rgba.begin() + y * row, img.rgba.begin() + (y + 1) * row, img.rgba.begin() + (h - 1 - y) * row);
    return img;
}

int distinct_colours(const Image& img, int cap) {
    std::unordered_set<uint32_t> seen;
    for (size_t i = 0; i + 3 < img.rgba.size() && int(seen.size()) < cap; i += 4)
        seen.insert(uint32_t(img.rgba[i]) | uint32_t(img.rgba[i + 1]) << 8 | uint32_t(img.rgba[i + 2]) << 16);
    return int(seen.size());
}

bool write_png(const std::string& path, const Image& img) {
    return stbi_write_png(path.c_str(), img.w, img.h, 4, img.rgba.data(), img.w * 4) != 0;
}

std::vector<uint8_t> encode_png(const Image& img) {
    std::vector<uint8_t> out;
    stbi_write_png_to_func([](void* ctx, void* data, int n) {
        auto* v = static_cast<std::vector<uint8_t>*>(ctx);
        v->insert(v->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + n);
    }, &out, img.w, img.h, 4, img.rgba.data(), img.w * 4);
    return out;
}

Image crop(const Image& img, int x, int y, int w, int h) {
    Image out{w, h, std::vector<uint8_t>(size_t(w) * size_t(h) * 4)};
    for (int r = 0; r < h; ++r)
        std::copy_n(img.rgba.begin() + (size_t(y + r) * size_t(img.w) + size_t(x)) * 4, size_t(w) * 4,
                    out.rgba.begin() + size_t(r) * size_t(w) * 4);
    return out;
}

}  // namespace wlui
