// byte_io.h: a little-endian byte buffer written field by field, and a reader that checks
// every length against what is left before it reads, so a truncated or corrupt file becomes
// a ByteError naming the field, never a read past the end or an allocation the size of a
// garbage count. (The plan cache's files, engine/model/plan_file.h, and GPT checkpoints.)
//
//   ByteWriter w;  w.u32(7);  w.var(300);  w.str("gelu.wk");
//   ByteReader r(w.bytes());  uint32_t n = r.u32("count");  std::string s = r.str("name");
//
// Fixed-width integers and floats go through memcpy: the host's byte order, which is little
// endian on every machine we build for (x86-64, arm64, WebAssembly).
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace wl {

struct ByteError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ByteWriter {
public:
    template <class X>
    void put(X x) {
        static_assert(std::is_arithmetic_v<X> || std::is_enum_v<X>, "fixed-width fields only");
        b_.append(reinterpret_cast<const char*>(&x), sizeof x);
    }
    void u8(uint8_t v) { put(v); }
    void u32(uint32_t v) { put(v); }
    void i32(int32_t v) { put(v); }
    void u64(uint64_t v) { put(v); }
    void f64(double v) { put(v); }
    void str(std::string_view s) {
        u32(uint32_t(s.size()));
        b_.append(s.data(), s.size());
    }
    // LEB128: 7 bits a byte, low first; small values (registers, lines, most immediates) take one.
    void var(uint32_t v) {
        while (v >= 0x80) {
            b_ += char(uint8_t(v) | 0x80);
            v >>= 7;
        }
        b_ += char(uint8_t(v));
    }
    void svar(int32_t v) { var((uint32_t(v) << 1) ^ uint32_t(v >> 31)); }   // zigzag: -1 -> 1, 1 -> 2
    void raw(std::string_view s) { b_.append(s.data(), s.size()); }
    void reserve(size_t n) { b_.reserve(n); }
    size_t size() const { return b_.size(); }
    const std::string& bytes() const { return b_; }
    std::string take() { return std::move(b_); }

private:
    std::string b_;
};

class ByteReader {
public:
    explicit ByteReader(std::string_view b) : b_(b) {}
    template <class X>
    X get(const char* what) {
        need(sizeof(X), what);
        X x;
        std::memcpy(&x, b_.data() + pos_, sizeof x);
        pos_ += sizeof x;
        return x;
    }
    uint8_t u8(const char* what) { return get<uint8_t>(what); }
    uint32_t u32(const char* what) { return get<uint32_t>(what); }
    int32_t i32(const char* what) { return get<int32_t>(what); }
    uint64_t u64(const char* what) { return get<uint64_t>(what); }
    double f64(const char* what) { return get<double>(what); }
    bool boolean(const char* what) {
        const uint8_t v = u8(what);
        if (v > 1) throw ByteError(std::string(what) + " is " + std::to_string(v) + ", not 0 or 1");
        return v == 1;
    }
    uint32_t var(const char* what) {
        uint32_t v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            const uint8_t b = u8(what);
            if (shift == 28 && b > 0x0f) throw ByteError(std::string(what) + " does not fit in 32 bits");
            v |= uint32_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        throw ByteError(std::string(what) + " does not fit in 32 bits");
    }
    int32_t svar(const char* what) {
        const uint32_t z = var(what);
        return int32_t((z >> 1) ^ (0u - (z & 1)));
    }
    std::string str(const char* what) {
        const uint32_t n = u32(what);
        need(n, what);
        std::string s(b_.substr(pos_, n));
        pos_ += n;
        return s;
    }
    std::string_view raw(size_t n, const char* what) {
        need(n, what);
        std::string_view s = b_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    // A count of items each at least min_bytes long: more than the bytes left can hold is
    // corrupt, so no caller reserves memory for it.
    uint32_t count(const char* what, size_t min_bytes) {
        const uint32_t n = u32(what);
        if (min_bytes && n > left() / min_bytes)
            throw ByteError(std::string(what) + " is " + std::to_string(n) + ", more than the file holds");
        return n;
    }
    size_t left() const { return b_.size() - pos_; }
    size_t pos() const { return pos_; }

private:
    void need(size_t n, const char* what) const {
        if (n > left()) throw ByteError(std::string("truncated (while reading ") + what + ")");
    }
    std::string_view b_;
    size_t pos_ = 0;
};

}  // namespace wl
