#include "libcommon/decompress.hpp"

#include <algorithm>

#include <zlib.h>
#include <zstd.h>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"

namespace vtools {

Compression compression_of(std::string_view data) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(data[i]); };
  if (data.size() >= 2 && byte(0) == 0x1f && byte(1) == 0x8b) return Compression::kGzip;
  if (data.size() >= 4 && byte(0) == 0x28 && byte(1) == 0xb5 && byte(2) == 0x2f && byte(3) == 0xfd)
    return Compression::kZstd;
  return Compression::kNone;
}

namespace {

/// What gzip and zstd streams share: the name in messages, and the count of text handed out against the limit.
class Decompressor : public TextStream {
 protected:
  Decompressor(std::string_view data, std::string name, std::uint64_t limit, const char* kind)
      : data_(data), name_(std::move(name)), limit_(limit), kind_(kind) {}
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ExitCode::kDataError, std::string("invalid ") + kind_ + " data" + (why.empty() ? "" : ": " + why),
                SourceLocation{name_});
  }
  [[noreturn]] void cut() const { fail("it ends early (a cut file?)"); }
  std::size_t counted(std::size_t n) {
    total_ += n;
    if (total_ > limit_) refuse_large_input(name_, limit_);
    return n;
  }

  std::string_view data_;  ///< compressed bytes not yet given to the decoder
  std::string name_;
  std::uint64_t limit_, total_ = 0;
  const char* kind_;
};

class GzipStream final : public Decompressor {
 public:
  GzipStream(std::string_view data, std::string name, std::uint64_t limit)
      : Decompressor(data, std::move(name), limit, "gzip") {
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) fail("zlib could not start");
  }
  ~GzipStream() override { inflateEnd(&z_); }

  std::size_t read(char* out, std::size_t size) override {
    if (done_) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    const uInt want = z_.avail_out;
    while (z_.avail_out == want) {
      if (z_.avail_in == 0 && !data_.empty()) {  // zlib counts input in 32 bits: feed it in pieces
        const std::size_t n = std::min<std::size_t>(data_.size(), 1u << 30);
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data_.data()));
        z_.avail_in = static_cast<uInt>(n);
        data_.remove_prefix(n);
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      const bool input_left = z_.avail_in > 0 || !data_.empty();
      if (rc == Z_STREAM_END) {
        if (!input_left) {
          done_ = true;
          break;
        }
        inflateReset(&z_);  // another member follows
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) fail(z_.msg ? z_.msg : "");
      if (!input_left && z_.avail_out != 0) cut();  // all read, not at the end, and nothing more to give
    }
    return counted(want - z_.avail_out);
  }

 private:
  z_stream z_{};
  bool done_ = false;
};

class ZstdStream final : public Decompressor {
 public:
  ZstdStream(std::string_view data, std::string name, std::uint64_t limit)
      : Decompressor(data, std::move(name), limit, "zstd"), z_(ZSTD_createDCtx()), in_{data.data(), data.size(), 0} {
    if (!z_) fail("no memory for the decoder");
  }
  ~ZstdStream() override { ZSTD_freeDCtx(z_); }

  std::size_t read(char* out, std::size_t size) override {
    ZSTD_outBuffer o{out, size, 0};
    while (o.pos < o.size) {
      const std::size_t in_before = in_.pos, out_before = o.pos;
      const std::size_t rc = ZSTD_decompressStream(z_, &o, &in_);
      if (ZSTD_isError(rc)) fail(ZSTD_getErrorName(rc));
      // The input is all read and nothing is left to give (rc is then the size of a next frame's header: ignored).
      if (in_.pos == in_before && o.pos == out_before) break;
      rc_ = rc;
    }
    // rc_ is 0 where a frame ended; anything else at the end of the input is a frame cut short.
    if (o.pos == 0 && rc_ != 0) cut();
    return counted(o.pos);
  }

 private:
  ZSTD_DCtx* z_;
  ZSTD_inBuffer in_;
  std::size_t rc_ = 0;
};

}  // namespace

std::unique_ptr<TextStream> decompress_stream(std::string_view data, Compression compression,
                                              std::string display_name, std::uint64_t limit_bytes) {
  if (compression == Compression::kGzip) return std::make_unique<GzipStream>(data, std::move(display_name), limit_bytes);
  if (compression == Compression::kZstd) return std::make_unique<ZstdStream>(data, std::move(display_name), limit_bytes);
  return std::make_unique<StringTextStream>(data);
}

}  // namespace vtools
