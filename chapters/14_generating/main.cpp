// Chapter 14: generating.
//
// With no arguments: trains the book's small Transformer with the causal mask for 1500 steps to predict the
// next word of chapter 13's language, prints its loss per word on held-out sentences and the share of the
// sentences it writes that the grammar accepts, then writes a sentence one word at a time, reading the
// earlier words through a cache of keys and values. --prompt starts the sentence; --temperature, --top-k and
// --seed draw the words instead of taking the likeliest; --no-cache recomputes the whole prefix at each step;
// --kv-heads shares the keys and values between query heads; --seeds 1,2,3,4,5 trains once per seed (and per
// --kv-heads value); --benchmark times the cache against recomputing; --json prints it all as one JSON document.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
// The computation is in generating.cpp, the JSON, tables and flags in generating_output.cpp; main() hands the
// command line to program::run_chapter_with_modes() (src/program/run_chapter.hpp) and says which computation the
// flags ask for.
#include <iostream>

#include "generating.hpp"
#include "program/run_chapter.hpp"
#include "program/trainings.hpp"

int main(int argc, char** argv) {
  return program::run_chapter_with_modes<generating::Flags>(
      argc, argv, "generating",
      "Chapter 14 of Attention, Compiled: a small Transformer with the causal mask, trained to predict the next word "
      "of a language stated in full, writes sentences one word at a time through a cache of keys and values; its "
      "held-out loss, the share of its sentences the grammar accepts, and the cache against recomputing.",
      [](generating::Flags& flags, const program::JsonFlags& output) {
        if (flags.benchmark()) {
          const generating::BenchmarkResult result = generating::benchmark(flags.read_benchmark());
          output.print([&] { return generating::to_json(result); }, [&] { return generating::tables(result); });
          return;
        }
        program::ProgressLine line;
        const generating::Progress progress = program::step_progress(line);
        const generating::Inputs inputs = flags.read();
        if (!inputs.seeds.empty()) {
          const generating::SeedsResult result = generating::compute_over_seeds(inputs, progress);
          output.print([&] { return generating::to_json(result); }, [&] { return generating::tables(result); });
          return;
        }
        if (flags.model_for_the_page()) {
          std::cout << generating::to_json(generating::saved(*generating::train(inputs, progress))).dump() << '\n';
          return;
        }
        const generating::Result result = generating::compute(inputs, progress);
        output.print([&] { return generating::to_json(result); }, [&] { return generating::tables(result); });
      });
}
