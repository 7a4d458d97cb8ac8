// Trained models a chapter's page entry keeps between calls.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace program {

/// The models a page entry has trained (or restored), by a key of everything training depends on. A reader
/// who changes only what the model reads (a sentence, a prompt, a setting of the decoding) waits for the
/// training once, not at every change, and switching back to an earlier setting does not train again. A
/// reader who tries more settings than @p most starts the keeping again, so memory stays bounded.
template <class Trained>
class KeptModels {
 public:
  explicit KeptModels(std::size_t most) : most_(most) {}

  /// The model kept under @p key, made by @p make if there is none.
  std::shared_ptr<const Trained> get(const std::string& key,
                                     const std::function<std::shared_ptr<const Trained>()>& make) {
    auto found = kept_.find(key);
    if (found == kept_.end()) {
      if (kept_.size() >= most_) kept_.clear();
      found = kept_.emplace(key, make()).first;
    }
    return found->second;
  }

 private:
  std::size_t most_;
  std::map<std::string, std::shared_ptr<const Trained>> kept_;
};

}  // namespace program
