// The fast GridSample backward's scratch: one allocation per run of a batch range, carved
// into 64-byte aligned arrays (every element used is written first, so what a reused buffer
// held never shows). The buffers come from the plan's tables (WorkspacePool) and go back
// there after the run: a plan reuses its runs' buffers (fresh pages on every call are
// measurably slower: docs/dev/grid_sample.md, "Backward") and frees them with its last
// copy; nothing outlives the plan, and concurrent runs of one plan take different buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "core/checked.h"

namespace gridops::kernels::grid_sample_backward_workspace {

/// Buffers a plan keeps between runs: at most one per run in flight at once, each of at
/// most kKeep bytes.
class WorkspacePool {
 public:
  static constexpr size_t kKeep = size_t{256} << 20;
  /// A buffer of at least `need` bytes (its capacity in *cap): a kept one that fits, else a
  /// fresh one (a kept one too small is freed). Throws std::bad_alloc.
  std::unique_ptr<unsigned char[]> take(size_t need, size_t* cap) {
    std::unique_ptr<unsigned char[]> small;  // freed outside the lock
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < kept_.size(); ++i) {
        if (kept_[i].second < need) continue;
        auto buf = std::move(kept_[i].first);
        *cap = kept_[i].second;
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
        return buf;
      }
      if (!kept_.empty()) {
        small = std::move(kept_.back().first);
        kept_.pop_back();
      }
    }
    small.reset();
    *cap = need;
    return std::unique_ptr<unsigned char[]>(new unsigned char[need]);
  }
  /// Keeps `buf` (capacity `cap`) for a later run when it is at most kKeep bytes.
  void give(std::unique_ptr<unsigned char[]> buf, size_t cap) noexcept {
    if (buf == nullptr || cap > kKeep) return;
    std::lock_guard<std::mutex> lock(mu_);
    try {
      kept_.emplace_back(std::move(buf), cap);
    } catch (const std::bad_alloc&) {
      // not kept: freed here
    }
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::unique_ptr<unsigned char[]>, size_t>> kept_;
};

/// The scratch of one run: reserve arrays with add(), then allocate() once (from the pool),
/// then get() each array; the buffer goes back to the pool when the arena dies.
class Arena {
 public:
  explicit Arena(WorkspacePool* pool) : pool_(pool) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  /// Reserves n elements of V; returns the offset to pass to get() after allocate().
  template <class V>
  size_t add(int64_t n) {
    const size_t at = static_cast<size_t>(size_);
    int64_t bytes = 0;
    if (!detail::mul_ok(n, static_cast<int64_t>(sizeof(V)), &bytes) || !detail::add_ok(bytes, 63, &bytes) ||
        !detail::add_ok(size_, bytes / 64 * 64, &size_)) {
      overflow_ = true;
      size_ = 0;
    }
    return at;
  }
  /// Throws std::bad_alloc when the sizes overflowed or the allocation fails.
  void allocate() {
    if (overflow_ || size_ > INT64_MAX - 64) throw std::bad_alloc();
    const size_t need = static_cast<size_t>(size_) + 64;
    buf_ = pool_->take(need, &cap_);
    const auto addr = reinterpret_cast<uintptr_t>(buf_.get());
    base_ = buf_.get() + ((64 - addr % 64) % 64);
  }
  template <class V>
  V* get(size_t at) const {
    return reinterpret_cast<V*>(base_ + at);
  }
  ~Arena() { pool_->give(std::move(buf_), cap_); }

 private:
  WorkspacePool* pool_;
  int64_t size_ = 0;
  bool overflow_ = false;
  size_t cap_ = 0;
  std::unique_ptr<unsigned char[]> buf_;
  unsigned char* base_ = nullptr;
};

}  // namespace gridops::kernels::grid_sample_backward_workspace
