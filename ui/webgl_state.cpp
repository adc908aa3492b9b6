// webgl_state.cpp (WebAssembly only): glGetIntegerv and glIsEnabled answered from a shadow of
// the GL state, for the state Dear ImGui's OpenGL3 backend saves and restores around every frame.
//
// Why: in Chromium, WebGL's getParameter for blend, viewport or scissor state is a round trip to
// the GPU process, which answers only once it has drawn everything queued before, the last frame
// included. Without a GPU (SwiftShader draws on the CPU) that is tens of ms: profiled with the
// DevTools sampler, without this shadow 96% of the page's main-thread time is getParameter, and the
// page cannot draw and emulate at the same time. imgui PR #6085 reports the same cost. The setters below keep
// the shadow and forward to WebGL through the emscripten_gl* names Emscripten provides for exactly
// this (library_webgl.js: "to allow name collisions with user-implemented things"). Anything not
// shadowed goes to WebGL's own getParameter.
#include "ui/webgl_state.h"

#include <GLES3/gl3.h>
#include <webgl/webgl1.h>
#include <webgl/webgl2.h>

#include <algorithm>
#include <cstring>

namespace {

struct Shadow {
    bool known = false;        // the first query reads the real state once (the viewport is the canvas's)
    GLint active_texture = GL_TEXTURE0;
    GLint program = 0;
    GLint texture_2d[32] = {};   // per texture unit
    GLint vertex_array = 0;
    GLint array_buffer = 0;
    GLint viewport[4] = {}, scissor[4] = {};
    GLint blend_src_rgb = GL_ONE, blend_dst_rgb = GL_ZERO, blend_src_alpha = GL_ONE, blend_dst_alpha = GL_ZERO;
    GLint blend_eq_rgb = GL_FUNC_ADD, blend_eq_alpha = GL_FUNC_ADD;
    bool blend = false, cull_face = false, depth_test = false, stencil_test = false, scissor_test = false;
};
Shadow s;

void learn() {
    if (s.known) return;
    s.known = true;
    emscripten_glGetIntegerv(GL_VIEWPORT, s.viewport);
    emscripten_glGetIntegerv(GL_SCISSOR_BOX, s.scissor);
}
GLint& unit_texture() { return s.texture_2d[std::clamp(s.active_texture - GL_TEXTURE0, 0, 31)]; }
bool* capability(GLenum cap) {
    switch (cap) {
    case GL_BLEND: return &s.blend;
    case GL_CULL_FACE: return &s.cull_face;
    case GL_DEPTH_TEST: return &s.depth_test;
    case GL_STENCIL_TEST: return &s.stencil_test;
    case GL_SCISSOR_TEST: return &s.scissor_test;
    default: return nullptr;
    }
}

}  // namespace

void wlui::webgl_state_forget() { s = Shadow{}; }

extern "C" {

void glActiveTexture(GLenum unit) {
    s.active_texture = GLint(unit);
    emscripten_glActiveTexture(unit);
}
void glUseProgram(GLuint p) {
    s.program = GLint(p);
    emscripten_glUseProgram(p);
}
void glBindTexture(GLenum target, GLuint t) {
    if (target == GL_TEXTURE_2D) unit_texture() = GLint(t);
    emscripten_glBindTexture(target, t);
}
void glDeleteTextures(GLsizei n, const GLuint* ts) {
    for (GLsizei k = 0; k < n; ++k)
        for (GLint& b : s.texture_2d)
            if (b == GLint(ts[k])) b = 0;   // deleting a bound texture unbinds it
    emscripten_glDeleteTextures(n, ts);
}
void glBindVertexArray(GLuint v) {
    s.vertex_array = GLint(v);
    emscripten_glBindVertexArray(v);
}
void glDeleteVertexArrays(GLsizei n, const GLuint* vs) {
    for (GLsizei k = 0; k < n; ++k)
        if (s.vertex_array == GLint(vs[k])) s.vertex_array = 0;
    emscripten_glDeleteVertexArrays(n, vs);
}
void glBindBuffer(GLenum target, GLuint b) {
    if (target == GL_ARRAY_BUFFER) s.array_buffer = GLint(b);
    emscripten_glBindBuffer(target, b);
}
void glDeleteBuffers(GLsizei n, const GLuint* bs) {
    for (GLsizei k = 0; k < n; ++k)
        if (s.array_buffer == GLint(bs[k])) s.array_buffer = 0;
    emscripten_glDeleteBuffers(n, bs);
}
void glViewport(GLint x, GLint y, GLsizei w, GLsizei h) {
    learn();
    s.viewport[0] = x, s.viewport[1] = y, s.viewport[2] = w, s.viewport[3] = h;
    emscripten_glViewport(x, y, w, h);
}
void glScissor(GLint x, GLint y, GLsizei w, GLsizei h) {
    learn();
    s.scissor[0] = x, s.scissor[1] = y, s.scissor[2] = w, s.scissor[3] = h;
    emscripten_glScissor(x, y, w, h);
}
void glBlendEquation(GLenum m) {
    s.blend_eq_rgb = s.blend_eq_alpha = GLint(m);
    emscripten_glBlendEquation(m);
}
void glBlendEquationSeparate(GLenum rgb, GLenum alpha) {
    s.blend_eq_rgb = GLint(rgb), s.blend_eq_alpha = GLint(alpha);
    emscripten_glBlendEquationSeparate(rgb, alpha);
}
void glBlendFunc(GLenum src, GLenum dst) {
    s.blend_src_rgb = s.blend_src_alpha = GLint(src);
    s.blend_dst_rgb = s.blend_dst_alpha = GLint(dst);
    emscripten_glBlendFunc(src, dst);
}
void glBlendFuncSeparate(GLenum src_rgb, GLenum dst_rgb, GLenum src_alpha, GLenum dst_alpha) {
    s.blend_src_rgb = GLint(src_rgb), s.blend_dst_rgb = GLint(dst_rgb);
    s.blend_src_alpha = GLint(src_alpha), s.blend_dst_alpha = GLint(dst_alpha);
    emscripten_glBlendFuncSeparate(src_rgb, dst_rgb, src_alpha, dst_alpha);
}
void glEnable(GLenum cap) {
    if (bool* c = capability(cap)) *c = true;
    emscripten_glEnable(cap);
}
void glDisable(GLenum cap) {
    if (bool* c = capability(cap)) *c = false;
    emscripten_glDisable(cap);
}
GLboolean glIsEnabled(GLenum cap) {
    if (const bool* c = capability(cap)) return *c ? GL_TRUE : GL_FALSE;
    return emscripten_glIsEnabled(cap);
}
void glGetIntegerv(GLenum pname, GLint* v) {
    switch (pname) {
    case GL_ACTIVE_TEXTURE: *v = s.active_texture; return;
    case GL_CURRENT_PROGRAM: *v = s.program; return;
    case GL_TEXTURE_BINDING_2D: *v = unit_texture(); return;
    case GL_VERTEX_ARRAY_BINDING: *v = s.vertex_array; return;
    case GL_ARRAY_BUFFER_BINDING: *v = s.array_buffer; return;
    case GL_VIEWPORT: learn(); std::memcpy(v, s.viewport, sizeof s.viewport); return;
    case GL_SCISSOR_BOX: learn(); std::memcpy(v, s.scissor, sizeof s.scissor); return;
    case GL_BLEND_SRC_RGB: *v = s.blend_src_rgb; return;
    case GL_BLEND_DST_RGB: *v = s.blend_dst_rgb; return;
    case GL_BLEND_SRC_ALPHA: *v = s.blend_src_alpha; return;
    case GL_BLEND_DST_ALPHA: *v = s.blend_dst_alpha; return;
    case GL_BLEND_EQUATION_RGB: *v = s.blend_eq_rgb; return;
    case GL_BLEND_EQUATION_ALPHA: *v = s.blend_eq_alpha; return;
    default: emscripten_glGetIntegerv(pname, v);
    }
}

}  // extern "C"
