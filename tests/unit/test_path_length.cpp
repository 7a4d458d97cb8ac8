// Dependency graphs, path lengths, sequential steps and multiply-adds (chapter 7).
//
// Every expected number here is derived by hand, in the comment beside it, or
// from a closed form whose reason is stated; none is copied from a run.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/dependency_graph.hpp"
#include "attention/layer_graphs.hpp"
#include "attention/mask.hpp"
#include "attention/recurrent_layer.hpp"
#include "support.hpp"

using attention::DependencyGraph;
using attention::LayerType;
using attention::unreachable;

namespace path_length_tests {

// A graph of @p nodes nodes with the given edges; inputs and outputs as given.
DependencyGraph graph_of(std::size_t nodes, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                         const std::vector<std::size_t>& inputs, const std::vector<std::size_t>& outputs) {
  DependencyGraph graph;
  for (std::size_t i = 0; i < nodes; ++i) graph.add_node();
  for (const auto& [from, to] : edges) graph.add_edge(from, to);
  graph.inputs = inputs;
  graph.outputs = outputs;
  return graph;
}

std::size_t ceiling_division(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Which outputs of @p compute change when input row @p j of @p inputs changes.
template <typename Layer>
std::vector<bool> outputs_that_move(const attention::Matrix& inputs, Eigen::Index j, Layer compute) {
  const attention::Matrix before = compute(inputs);
  attention::Matrix changed = inputs;
  changed.row(j).array() += 0.5;
  const attention::Matrix after = compute(changed);
  std::vector<bool> moved;
  for (Eigen::Index i = 0; i < before.rows(); ++i) {
    moved.push_back((before.row(i) - after.row(i)).cwiseAbs().maxCoeff() > 0.0);
  }
  return moved;
}

// Which outputs of @p graph a path from input @p j reaches.
std::vector<bool> outputs_reached(const DependencyGraph& graph, std::size_t j) {
  const std::vector<std::size_t> distance = attention::breadth_first_distances(graph, graph.inputs[j]);
  std::vector<bool> reached;
  for (const std::size_t output : graph.outputs) reached.push_back(distance[output] != unreachable);
  return reached;
}

}  // namespace path_length_tests

using path_length_tests::ceiling_division;
using path_length_tests::graph_of;

TEST_CASE("breadth-first search finds the shortest path to every node and marks the unreachable", "[ch07]") {
  // 0 → 1 → 2 → 3 and a shortcut 0 → 3; 4 → 0; node 5 on its own.
  const DependencyGraph graph = graph_of(6, {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {4, 0}}, {0}, {3});
  CHECK(attention::breadth_first_distances(graph, 0) == std::vector<std::size_t>{0, 1, 2, 1, unreachable, unreachable});
  CHECK(attention::breadth_first_distances(graph, 4) == std::vector<std::size_t>{1, 2, 3, 2, 0, unreachable});
  CHECK(attention::breadth_first_distances(graph, 5)[5] == 0);
  CHECK_THROWS_AS(attention::breadth_first_distances(graph, 6), std::out_of_range);
  CHECK_THROWS_AS(DependencyGraph{}.add_edge(0, 0), std::out_of_range);
}

TEST_CASE("path lengths: the longest shortest path over connected input-output pairs", "[ch07]") {
  // Inputs 0, 1; outputs 3, 4. 0 → 2 → 3, 0 → 3 (shortcut), 1 → 2 → 4. Input 0 never reaches output 4.
  const DependencyGraph graph = graph_of(5, {{0, 2}, {2, 3}, {0, 3}, {1, 2}}, {0, 1}, {3, 4});
  attention::PathLengths found = attention::path_lengths(graph);
  CHECK(found.maximum == 2);  // 1 → 2 → 3; the pair (0, 3) takes the shortcut, 1 edge
  CHECK(found.connected_pairs == 2);
  CHECK(found.pairs == 4);
  CHECK_FALSE(found.connects_every_pair());
  CHECK(found.to_last_output == std::vector<std::size_t>{unreachable, unreachable});
  // Connect 2 → 4: now every pair, and the farthest is 2 edges.
  DependencyGraph more = graph;
  more.add_edge(2, 4);
  found = attention::path_lengths(more);
  CHECK(found.maximum == 2);
  CHECK(found.connects_every_pair());
  CHECK(found.to_last_output == std::vector<std::size_t>{2, 2});
}

TEST_CASE("the longest chain counts the steps that must wait for one another", "[ch07]") {
  // Two chains, 0 → 1 → 2 → 3 and 4 → 3, meet at 3: 3 is ready after step 3.
  CHECK(attention::longest_chain(graph_of(5, {{0, 1}, {1, 2}, {2, 3}, {4, 3}}, {}, {})) == 3);
  // Nodes without edges: nothing waits.
  CHECK(attention::longest_chain(graph_of(3, {}, {}, {})) == 0);
  // All of 0, 1, 2 feed all of 3, 4, 5 at once: one step, however many edges.
  CHECK(attention::longest_chain(
            graph_of(6, {{0, 3}, {0, 4}, {0, 5}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}}, {}, {})) == 1);
  CHECK_THROWS_AS(attention::longest_chain(graph_of(2, {{0, 1}, {1, 0}}, {}, {})), std::invalid_argument);
}

TEST_CASE("stacking joins the outputs of one layer to the inputs of the next", "[ch07]") {
  const DependencyGraph layer = attention::self_attention_graph(2);  // 2 inputs, 2 outputs, 4 edges
  const DependencyGraph two = attention::stacked({layer, layer});
  CHECK(two.node_count() == 6);  // 2 inputs, 2 in the middle, 2 outputs
  CHECK(two.edge_count() == 8);
  CHECK(two.inputs == layer.inputs);
  CHECK(attention::path_lengths(two).maximum == 2);
  CHECK(attention::longest_chain(two) == 2);
  // A recurrent layer on top keeps its own h_0: 2 + 2 + (1 + 2) nodes.
  const DependencyGraph mixed = attention::stacked({layer, attention::recurrent_graph(2)});
  CHECK(mixed.node_count() == 7);
  // Input 1 → h_2: through middle position 1 it is 2 edges (→ x_2 → h_2); the longer
  // way through x_1 → h_1 → h_2 is 3 edges, but the path length is the shortest.
  CHECK(attention::path_lengths(mixed).maximum == 2);
  CHECK(attention::longest_chain(mixed) == 3);  // a chain is the longest way: input → x_1 → h_1 → h_2
  CHECK_THROWS_AS(attention::stacked({}), std::invalid_argument);
  CHECK_THROWS_AS(attention::stacked({layer, attention::self_attention_graph(3)}), std::invalid_argument);
}

TEST_CASE("self-attention: one edge between every input and every output, n = 1, 2, 5", "[ch07]") {
  for (const std::size_t n : {1u, 2u, 5u}) {
    const attention::LayerCount count = attention::count_layer(LayerType::self_attention, n, 4, 3, 1);
    CHECK(count.layers == 1);
    CHECK(count.edges == n * n);
    CHECK(count.paths.maximum == 1);
    CHECK(count.paths.connects_every_pair());
    CHECK(count.sequential_steps == 1);
    CHECK(count.stack_sequential_steps == 1);
    // Each edge: q_i · k_j and w_ij v_j, d = 4 multiply-adds each: 2 · n² · 4.
    CHECK(count.multiply_adds == 8 * n * n);
  }
}

TEST_CASE("recurrent: from input 1 to output n the path goes through n hidden states, n = 1, 2, 5", "[ch07]") {
  for (const std::size_t n : {1u, 2u, 5u}) {
    const attention::LayerCount count = attention::count_layer(LayerType::recurrent, n, 4, 3, 1);
    CHECK(count.layers == 1);
    CHECK(count.edges == 2 * n);                            // x_t → h_t and h_(t−1) → h_t for every t
    CHECK(count.paths.maximum == n);                        // x_1 → h_1 → h_2 → … → h_n
    CHECK(count.sequential_steps == n);                     // h_0 → h_1 → … → h_n
    CHECK(count.paths.connected_pairs == n * (n + 1) / 2);  // output t sees inputs 1 … t
    CHECK(count.multiply_adds == 2 * n * 16);               // U x_t and W h_(t−1), d² = 16 each, n times
    std::vector<std::size_t> to_last;
    // Counting positions from 0: x_j → h_j is 1 edge, then h_j → … → h_(n−1) is n − 1 − j more.
    for (std::size_t j = 0; j < n; ++j) to_last.push_back(n - j);
    CHECK(count.paths.to_last_output == to_last);
  }
  // Stacking does not help: output 1 never depends on input 2.
  CHECK_THROWS_AS(attention::stack_until_connected(LayerType::recurrent, 3, 3, 1), std::invalid_argument);
}

TEST_CASE("bidirectional recurrent: every input reaches every output, along a chain, n = 1, 2, 5", "[ch07]") {
  for (const std::size_t n : {1u, 2u, 5u}) {
    const attention::LayerCount count = attention::count_layer(LayerType::bidirectional_recurrent, n, 4, 3, 1);
    CHECK(count.layers == 1);  // one layer already connects every pair
    CHECK(count.paths.connects_every_pair());
    CHECK(count.edges == 6 * n);          // U→ x_t, W→ h→_(t−1), U← x_t, W← h←_(t+1), A h→_t, B h←_t
    CHECK(count.paths.maximum == n + 1);  // x_1 → h→_1 → … → h→_n → y_n: n − 1 steps along the chain, 2 more
    CHECK(count.sequential_steps == n + 1);    // h→_0 → h→_1 → … → h→_n → y_n
    CHECK(count.multiply_adds == 6 * n * 16);  // six d × d products per position, d² = 16
    std::vector<std::size_t> to_last;
    // Counting from 0: x_j → h→_j, then n − 1 − j steps to h→_(n−1), then → y_(n−1).
    for (std::size_t j = 0; j < n; ++j) to_last.push_back(n + 1 - j);
    CHECK(count.paths.to_last_output == to_last);
  }
  CHECK_THROWS_AS(attention::bidirectional_recurrent_graph(0), std::invalid_argument);
}

TEST_CASE("contiguous convolution, k = 3: a layer reaches one position each way, n = 1, 2, 5", "[ch07]") {
  // n = 1: one layer (output 1 reads input 1). n = 2: one layer (each reads both).
  // n = 5: input 1 reaches output 5 after 4 layers, one position per layer.
  const std::size_t expected_layers[] = {1, 1, 4};
  // Edges of one layer: 3 taps per output, minus the taps that fall on padding
  // (1 at each end when n ≥ 2): 1, 2 + 2, 2 + 3 + 3 + 3 + 2.
  const std::size_t expected_edges[] = {1, 4, 13};
  std::size_t at = 0;
  for (const std::size_t n : {1u, 2u, 5u}) {
    const attention::LayerCount count = attention::count_layer(LayerType::convolution, n, 4, 3, 1);
    CHECK(count.layers == expected_layers[at]);
    CHECK(count.paths.maximum == expected_layers[at]);  // every path of a stack climbs one layer per edge
    CHECK(count.paths.connects_every_pair());
    CHECK(count.sequential_steps == 1);
    CHECK(count.stack_sequential_steps == expected_layers[at]);
    CHECK(count.edges == expected_edges[at]);
    CHECK(count.multiply_adds == expected_edges[at] * 16);  // a d × d matrix per tap, d = 4
    CHECK(count.stack_multiply_adds == expected_edges[at] * 16 * expected_layers[at]);
    ++at;
  }
}

TEST_CASE("restricted self-attention, radius 1: the same reach as a kernel of 3, n = 1, 2, 5", "[ch07]") {
  const std::size_t expected_layers[] = {1, 1, 4};
  const std::size_t expected_edges[] = {1, 4, 13};  // |i − j| ≤ 1, as the kernel of 3
  std::size_t at = 0;
  for (const std::size_t n : {1u, 2u, 5u}) {
    const attention::LayerCount count = attention::count_layer(LayerType::restricted_self_attention, n, 4, 3, 1);
    CHECK(count.layers == expected_layers[at]);
    CHECK(count.paths.maximum == expected_layers[at]);
    CHECK(count.sequential_steps == 1);
    CHECK(count.edges == expected_edges[at]);
    CHECK(count.multiply_adds == expected_edges[at] * 8);  // 2d per edge, d = 4
    ++at;
  }
  // Radius 2, n = 5: input 1 reaches output 5 in 2 layers (1 → 3 → 5).
  CHECK(attention::count_layer(LayerType::restricted_self_attention, 5, 4, 3, 2).layers == 2);
}

TEST_CASE("dilated convolution, k = 3: dilations 1, 3, 1, … and the ends of the sequence, n = 1, 2, 5", "[ch07]") {
  // Powers of 3 below n = 5: 1 and 3, so the layers have dilations 1, 3, 1, 3, …
  CHECK(attention::dilation_at(3, 0, 5) == 1);
  CHECK(attention::dilation_at(3, 1, 5) == 3);
  CHECK(attention::dilation_at(3, 2, 5) == 1);
  CHECK(attention::dilation_at(3, 2, 20) == 9);  // 1, 3, 9 are below 20; 27 is not
  CHECK(attention::dilation_at(3, 3, 20) == 1);
  CHECK(attention::dilation_at(3, 7, 1) == 1);
  CHECK(attention::count_layer(LayerType::dilated_convolution, 1, 4, 3, 1).layers == 1);
  CHECK(attention::count_layer(LayerType::dilated_convolution, 2, 4, 3, 1).layers == 1);
  // n = 5 (positions 0 … 4). After layer 0 (taps ±1) and layer 1 (taps ±3), input 0
  // reaches outputs 0, 1, 3, 4 (0+0+0, 0+1+0, 0+0+3, 0+1+3), but not 2: 2 = −1 + 3
  // would pass through position −1, which is padding. Layer 2 (taps ±1) closes the gap.
  const attention::LayerCount five = attention::count_layer(LayerType::dilated_convolution, 5, 4, 3, 1);
  CHECK(five.layers == 3);
  CHECK(five.paths.maximum == 3);
  CHECK(five.edges == 13);  // the bottom layer is contiguous
  const DependencyGraph two_layers_only =
      attention::stacked({attention::convolution_graph(5, 3, 1), attention::convolution_graph(5, 3, 3)});
  CHECK(path_length_tests::outputs_reached(two_layers_only, 0) == std::vector<bool>{true, true, false, true, true});
}

TEST_CASE("stack depths follow the reach of one layer, for many n, kernels and radii", "[ch07]") {
  // A contiguous kernel k reaches h = (k − 1)/2 positions each way per layer, so
  // positions n − 1 apart need ⌈(n − 1)/h⌉ layers (at least 1); a radius R, ⌈(n − 1)/R⌉.
  for (std::size_t n = 1; n <= 24; ++n) {
    for (const std::size_t kernel : {3u, 5u, 7u}) {
      const std::size_t reach = (kernel - 1) / 2;
      const std::size_t layers = std::max<std::size_t>(1, ceiling_division(n - 1, reach));
      CHECK(attention::count_layer(LayerType::convolution, n, 1, kernel, 1).layers == layers);
      CHECK(attention::count_layer(LayerType::restricted_self_attention, n, 1, 3, reach).layers == layers);
    }
  }
}

TEST_CASE("multiply-adds per layer grow as Table 1 says, with the constants counted", "[ch07]") {
  for (const std::size_t n : {3u, 8u, 17u}) {
    for (const std::uint64_t d : {1u, 4u, 64u}) {
      CHECK(attention::count_layer(LayerType::self_attention, n, d, 3, 1).multiply_adds == 2 * n * n * d);
      CHECK(attention::count_layer(LayerType::recurrent, n, d, 3, 1).multiply_adds == 2 * n * d * d);
      // k taps per output, less the h(h + 1) taps that fall on padding at the two ends (n ≥ k).
      for (const std::size_t kernel : {3u, 5u}) {
        const std::size_t h = (kernel - 1) / 2;
        CHECK(attention::count_layer(LayerType::convolution, n, d, kernel, 1).multiply_adds ==
              (kernel * n - h * (h + 1)) * d * d);
      }
      // 2R + 1 neighbours per output, less R(R + 1) at the ends, 2d each.
      for (const std::size_t radius : {1u, 2u}) {
        CHECK(attention::count_layer(LayerType::restricted_self_attention, n, d, 3, radius).multiply_adds ==
              ((2 * radius + 1) * n - radius * (radius + 1)) * 2 * d);
      }
    }
  }
  CHECK(attention::multiply_adds_per_edge(LayerType::self_attention, 512) == 1024);
  CHECK(attention::multiply_adds_per_edge(LayerType::recurrent, 512) == 262144);
}

TEST_CASE("the graphs refuse what they cannot be", "[ch07]") {
  CHECK_THROWS_AS(attention::self_attention_graph(0), std::invalid_argument);
  CHECK_THROWS_AS(attention::recurrent_graph(0), std::invalid_argument);
  CHECK_THROWS_AS(attention::convolution_graph(5, 4), std::invalid_argument);  // even: not centred
  CHECK_THROWS_AS(attention::convolution_graph(5, 1), std::invalid_argument);
  CHECK_THROWS_AS(attention::convolution_graph(5, 3, 0), std::invalid_argument);
  CHECK_THROWS_AS(attention::restricted_attention_graph(5, 0), std::invalid_argument);
  CHECK_THROWS_AS(attention::dilation_at(1, 2, 5), std::invalid_argument);
}

TEST_CASE("a recurrent layer computes h_t = tanh(W h_(t-1) + U x_t) one step after another", "[ch07]") {
  // Width 1: W = 0.5, U = 2, inputs 1, 0, −1.
  attention::Matrix inputs(3, 1), hidden_weights(1, 1), input_weights(1, 1);
  inputs << 1, 0, -1;
  hidden_weights << 0.5;
  input_weights << 2;
  const attention::Matrix states = attention::recurrent_layer(inputs, hidden_weights, input_weights);
  const double h1 = std::tanh(2.0);
  const double h2 = std::tanh(0.5 * h1);
  const double h3 = std::tanh(0.5 * h2 - 2.0);
  CHECK(states(0, 0) == Approx(h1).epsilon(1e-15));
  CHECK(states(1, 0) == Approx(h2).epsilon(1e-15));
  CHECK(states(2, 0) == Approx(h3).epsilon(1e-15));
  CHECK_THROWS_AS(attention::recurrent_layer(inputs, attention::Matrix::Zero(2, 2), input_weights),
                  std::invalid_argument);
  CHECK_THROWS_AS(attention::recurrent_layer(attention::Matrix::Zero(3, 2), hidden_weights, input_weights),
                  std::invalid_argument);
}

TEST_CASE("the graphs are the computations: changing input j moves exactly the outputs a path reaches", "[ch07]") {
  std::mt19937_64 generator(7);
  const Eigen::Index n = 6;
  const Eigen::Index d = 3;
  const attention::Matrix inputs = support::random_matrix(n, d, generator);
  const attention::Matrix hidden_weights = support::random_matrix(d, d, generator) / 2.0;
  const attention::Matrix input_weights = support::random_matrix(d, d, generator) / 2.0;
  const auto recurrence = [&](const attention::Matrix& x) {
    return attention::recurrent_layer(x, hidden_weights, input_weights);
  };
  const auto self_attention = [](const attention::Matrix& x) {
    return attention::scaled_dot_product_attention(x, x, x).output;
  };
  attention::AttentionOptions band;  // chapter 4's band mask of radius 1
  band.mask = attention::band_mask(n, 1);
  const auto restricted = [&](const attention::Matrix& x) {
    return attention::scaled_dot_product_attention(x, x, x, band).output;
  };
  const auto restricted_twice = [&](const attention::Matrix& x) { return restricted(restricted(x)); };
  const auto size = static_cast<std::size_t>(n);
  const DependencyGraph restricted_layer = attention::restricted_attention_graph(size, 1);
  for (Eigen::Index j = 0; j < n; ++j) {
    const auto input = static_cast<std::size_t>(j);
    CHECK(path_length_tests::outputs_that_move(inputs, j, recurrence) ==
          path_length_tests::outputs_reached(attention::recurrent_graph(size), input));
    CHECK(path_length_tests::outputs_that_move(inputs, j, self_attention) ==
          path_length_tests::outputs_reached(attention::self_attention_graph(size), input));
    CHECK(path_length_tests::outputs_that_move(inputs, j, restricted) ==
          path_length_tests::outputs_reached(restricted_layer, input));
    CHECK(path_length_tests::outputs_that_move(inputs, j, restricted_twice) ==
          path_length_tests::outputs_reached(attention::stacked({restricted_layer, restricted_layer}), input));
  }
}
