// Chapter 13: attention that means something.
//
// With no arguments: trains the book's small Transformer (chapter 11's token classifier) for 1500 steps to
// tag the words of a small language stated in full, then prints its held-out accuracy beside the best a
// layer that reads one word at a time can do, and how it reads "I saw a saw": the tags and each head's
// attention. --task agreement trains it instead to give the verb after a subject the subject's number
// across other nouns ("the key to the cabinets [verb]"). --sentence gives it your own words; --seeds
// 1,2,3,4,5 trains once per seed; --language prints the grammar and trains nothing; --json prints it all
// as one JSON document.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
// The computation is in sentences.cpp and grammar.cpp, the JSON, tables and flags in sentences_output.cpp;
// main() hands the command line to program::run_chapter_with_modes() (src/program/run_chapter.hpp) and says
// which computation the flags ask for.
#include <iostream>

#include "program/run_chapter.hpp"
#include "program/trainings.hpp"
#include "sentences.hpp"

int main(int argc, char** argv) {
  return program::run_chapter_with_modes<sentences::Flags>(
      argc, argv, "sentences",
      "Chapter 13 of Attention, Compiled: a small Transformer trained on a language stated in full, to tag every "
      "word (\"I saw a saw\") or to give a verb its subject's number across other nouns; held-out accuracy, what "
      "a layer that reads one word at a time can do, and where each head looks.",
      [](sentences::Flags& flags, const program::JsonFlags& output) {
        if (flags.language_only()) {
          output.print([] { return sentences::language_json(); }, [] { return sentences::language_tables(); });
          return;
        }
        program::ProgressLine line;
        const sentences::Progress progress = program::step_progress(line);
        const sentences::Inputs inputs = flags.read();
        if (!inputs.seeds.empty()) {
          const sentences::SeedsResult result = sentences::compute_over_seeds(inputs, progress);
          output.print([&] { return sentences::to_json(result); }, [&] { return sentences::tables(result); });
          return;
        }
        if (flags.model_for_the_page()) {
          std::cout << sentences::to_json(sentences::saved(*sentences::train(inputs, progress))).dump() << '\n';
          return;
        }
        const sentences::Result result = sentences::compute(inputs, progress);
        output.print([&] { return sentences::to_json(result); }, [&] { return sentences::tables(result); });
      });
}
