// Chapter 15: rotary positions. Instead of adding a position's vector to the input once (chapter 6), every
// head turns each query and key by an angle proportional to its position (attention/rotary.hpp), so that a
// score depends on how far apart two words stand and not on where they stand:
//
//   the turn     one query and one key, turned at several pairs of positions: equal offsets, equal scores;
//                and the score of a query with a key against their offset, over many offsets;
//   training     the book's small Transformer, with the causal mask, learns to say the word that stood a few
//                places back, with chapter 6's added positions, with rotary ones, and with none; trained on
//                sequences no longer than 16 words and tested on 32, over several seeds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/adam.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/matrix.hpp"
#include "attention/token_classifier.hpp"
#include "program/command_line.hpp"
#include "program/trainings.hpp"

namespace rotary_positions {

/// The name of a way of giving positions, as the flags and the JSON spell it: added, rotary, none.
std::string scheme_name(attention::Positions scheme);

struct Inputs {
  // The turn
  attention::Vector query = attention::Vector::Zero(0);  // q, even width (empty: the toy's fish query, (1, 1))
  attention::Vector key = attention::Vector::Zero(0);    // k (empty: the toy's cat key, (2, 0))
  Eigen::Index ones = 0;                                 // above 0: q = k = this many ones, instead
  std::vector<std::pair<Eigen::Index, Eigen::Index>> placements{{0, 0}, {2, 0}, {5, 3}, {12, 10}, {0, 2}, {7, 9}};
  Eigen::Index largest_offset = 40;  // the score against the offset, from −this to +this
  // Training
  bool train = true;
  std::vector<attention::Positions> schemes{attention::Positions::added, attention::Positions::rotary,
                                            attention::Positions::none};
  std::vector<std::uint64_t> seeds{1};
  long long training_steps = 1000;    // Adam updates
  Eigen::Index batch = 16;            // sequences per update
  Eigen::Index back = 3;              // the task: say the word that stood this many places back
  Eigen::Index longest_trained = 16;  // training sequences have back + 1 to this many words
  Eigen::Index tested_length = 32;    // test sequences have this many
  Eigen::Index tested = 200;          // test sequences
  attention::AdamSettings adam = faster_adam();
  attention::TokenClassifierShape shape = default_shape();
  static attention::TokenClassifierShape default_shape();
  static attention::AdamSettings faster_adam();
};

/// The query and the key at one pair of positions.
struct Placement {
  Eigen::Index query_position = 0, key_position = 0;
  attention::Vector turned_query, turned_key;
  double first_pair_cos = 0.0, first_pair_sin = 0.0;  // of the angle the query's first pair turns by: m ω_0
  double score = 0.0;                                 // turned query · turned key
};

struct Turn {
  attention::Vector query, key;
  double unturned_score = 0.0;  // q · k, as chapter 1 computes it
  std::vector<double> angles;   // ω_i, radians per position, for each pair of coordinates
  std::vector<Placement> placements;
  std::vector<Eigen::Index> offsets;  // m − n, from −largest_offset to +largest_offset
  std::vector<double> scores;         // q · k turned at positions m = offset, n = 0 (or m = 0, n = −offset)
  // The same score between whole offsets too, where no token stands: the smooth wave that `scores` samples,
  // wave_samples points per place of offset (up to 8; fewer past 100 places, so that it stays within 1,601).
  // At every whole offset it is `scores`, bit for bit.
  Eigen::Index wave_samples = 1;
  std::vector<double> wave_offsets, wave_scores;
};

/// One model trained on the task.
struct TrainedRun {
  attention::Positions scheme = attention::Positions::added;
  std::uint64_t seed = 0;
  std::vector<long long> logged_steps;
  std::vector<double> loss;                    // mean training loss since the previous logged point
  std::vector<double> accuracy;                // per position of the test sequences (0 before `back`: no answer there)
  std::vector<double> attention_on_answer;     // per position: the weight the head that looks there most puts on
                                               // the word `back` places back, averaged over the test sequences
  Eigen::Index looking_head = 0;               // the head that puts most weight on the answer at trained positions
  std::vector<double> score_by_offset;         // that head's scaled score of a query with the key `offset` places
                                               // back, offset 0 to tested_length − 1, averaged over the test
  Eigen::Index rival_offset = 0;               // the offset, other than `back`, that head scores highest
  double turn_between = 0.0;                   // how far pair 0 turns between offset `back` and it, in radians
  long long full_turns = 0;                    // … that many whole turns, nearest
  std::vector<double> pair_turns_from_answer;  // for every pair of the head: how far (radians, ≥ 0) its turn
                                               // between offset `back` and the rival is from a whole number of turns
  double accuracy_trained = 0.0;               // over the positions a training sequence has (back … longest − 1)
  double accuracy_beyond = 0.0;                // over the positions it never has (longest … tested_length − 1)
  double seconds = 0.0;
};

/// An offset whose turn, in a head's fastest pair, nearly matches offset `back`'s.
struct NearAlike {
  Eigen::Index offset = 0;
  double turn_between = 0.0;                   // how far pair 0 turns between offset `back` and it, in radians
  std::vector<double> pair_turns_from_answer;  // for every pair of the head: how far (radians, ≥ 0) that turn is
                                               // from a whole number of turns
};

struct Result {
  Inputs inputs;
  Turn turn;
  // Among the offsets training asks about (0 … longest_trained − 1, but `back`), the one whose pair-0 turn from
  // `back` is nearest a whole number of turns, not 0; none if no trained offset turns as much as half a turn.
  std::optional<NearAlike> trained_near_alike;
  // For every pair of a head: how far it turns, in radians, between offset `back` and the farthest offset
  // training asks about (longest_trained − 1): the most of that pair's turn training ever shows a head.
  std::vector<double> pair_turns_in_training;
  std::vector<TrainedRun> runs;  // for each scheme, for each seed
  long long parameters = 0;
};

using Progress = program::StepProgress;  // step, steps, seconds so far

/// The turn of the worked example, and the score against the offset.
Turn turn(const Inputs& inputs);
/// One model trained on the task with @p scheme and @p seed, then tested: it starts from starting_weights() and is
/// tested (test_model()) on test_sequences(), whatever the scheme.
TrainedRun train(const Inputs& inputs, attention::Positions scheme, std::uint64_t seed, const Progress& progress = {});
/// The weights every scheme's model of @p seed starts from, drawn from a stream of the seed of their own.
attention::TokenClassifierWeights starting_weights(const Inputs& inputs, std::uint64_t seed);
/// The test's sequences for @p seed: inputs.tested of inputs.tested_length digits, from a third stream of the seed.
std::vector<std::vector<Eigen::Index>> test_sequences(const Inputs& inputs, std::uint64_t seed);
/// A model with @p weights and @p scheme on @p sequences: TrainedRun's accuracy, attention_on_answer, looking_head,
/// score_by_offset, rival_offset, turns and accuracies (its seed, losses and time left empty). Throws
/// std::invalid_argument if there is no sequence or one is not inputs.tested_length long.
TrainedRun test_model(const Inputs& inputs, const attention::TokenClassifierWeights& weights,
                      attention::Positions scheme, const std::vector<std::vector<Eigen::Index>>& sequences);

/// The task's loss on one sequence: at each position t from back on, the word at t − back is the answer. The first
/// back positions have none: the loss and its gradient leave them out.
attention::CrossEntropy task_loss(const attention::Matrix& logits, const std::vector<Eigen::Index>& words,
                                  Eigen::Index back);
/// The trained offset that looks most like offset `back` to a head's fastest pair (Result::trained_near_alike).
std::optional<NearAlike> trained_near_alike(const Inputs& inputs);
/// Everything inputs ask for: the turn, and (unless told not to) one training per scheme and seed.
Result compute(const Inputs& inputs, const Progress& progress = {});

// Front ends (rotary_positions_output.cpp)
nlohmann::json to_json(const Result& result);
std::string tables(const Result& result);

class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;
  std::string query_text_, key_text_, ones_text_;
  std::string placements_text_ = "0,0;2,0;5,3;12,10;0,2;7,9";
  std::string largest_offset_text_ = "40";
  std::string schemes_text_ = "added,rotary,none";
  std::string seeds_text_ = "1";
  std::string training_steps_text_ = "1000";
  std::string back_text_ = "3";
  std::string longest_trained_text_ = "16";
  std::string tested_length_text_ = "32";
  bool no_training_ = false;
};

}  // namespace rotary_positions
