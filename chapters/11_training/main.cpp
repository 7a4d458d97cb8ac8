// Chapter 11: a small Transformer, trained in C++, learns to reverse digits.
//
// With no arguments: 1000 Adam steps of 16 sequences on reversing 8 digits
// (0 to 9), one encoder layer of two heads; it prints the loss and the
// held-out accuracy as training goes, one held-out example and the learned
// attention maps, whose right answer is the anti-diagonal. --task copy is the
// contrast. --seeds 1,2,3 trains once per seed and prints, per seed and head,
// how much weight lands on the right position. --json prints it all as one
// JSON document; --weights adds every trained weight.
//
// While it trains, a progress line (step, loss, accuracy, time left) goes to
// stderr when stderr is a terminal, and nowhere otherwise.
//
// The training is in training.cpp; main() hands the command line to program::run_chapter_with_modes()
// (src/program/run_chapter.hpp) and says which computation the flags ask for.
#include <iostream>

#include <fmt/format.h>

#include "program/progress_line.hpp"
#include "program/run_chapter.hpp"
#include "training.hpp"

int main(int argc, char** argv) {
  return program::run_chapter_with_modes<training::Flags>(
      argc, argv, "training",
      "Chapter 11 of Attention, Compiled: a small Transformer (embedding, sinusoidal positions, encoder layers of "
      "two heads, a linear read-out) trained with Adam to reverse a sequence of digits; held-out accuracy and the "
      "learned attention maps.",
      [](training::Flags& flags, const program::JsonFlags& output) {
        program::ProgressLine line;
        training::Progress progress;
        if (line.shown()) {
          progress = [&line](long long step, long long steps, double loss, double accuracy, double seconds) {
            const double left = seconds / static_cast<double>(step) * static_cast<double>(steps - step);
            line.update(fmt::format("step {}/{}  loss {:.4f}  held-out accuracy {:.1f} %  {} left", step, steps, loss,
                                    100.0 * accuracy, program::duration_text(left)));
            if (step == steps) std::cerr << '\n';  // the last line stays on the terminal
          };
        }
        const training::Inputs inputs = flags.read();
        if (!inputs.seeds.empty()) {
          const training::SeedsResult result = training::compute_over_seeds(inputs, progress);
          output.print([&] { return training::to_json(result); }, [&] { return training::tables(result); });
          return;
        }
        const training::Result result = training::compute(inputs, progress);
        output.print([&] { return training::to_json(result); }, [&] { return training::tables(result); });
      });
}
