/// @file layer_graphs.hpp
/// @brief The dependency graph of one layer of each type in Table 1 of the paper, its cost, and stacks deep enough to connect every pair.
///
/// Table 1 (§4 of the paper) compares self-attention, recurrent,
/// convolutional and restricted self-attention layers by three figures, in
/// O-notation. This header builds each layer as a DependencyGraph over n
/// positions, so that the figures can be counted instead of asserted:
/// path_lengths() and longest_chain() search the graphs, and
/// multiply_adds() prices their edges. A layer that does not connect every
/// input to every output in one go is stacked until it does
/// (stack_until_connected()).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "attention/dependency_graph.hpp"

namespace attention {

/// @brief The layer types of Table 1, with the convolution in its two forms (§4).
enum class LayerType {
  self_attention,             ///< every output reads every input
  recurrent,                  ///< h_t = tanh(W h_(t−1) + U x_t): a chain of hidden states
  bidirectional_recurrent,    ///< a chain each way, read together: y_t = A h→_t + B h←_t (not in Table 1)
  convolution,                ///< output i reads the k inputs centred on i (a contiguous kernel)
  dilated_convolution,        ///< as convolution, with the taps dilation_at() apart in each layer of a stack
  restricted_self_attention,  ///< output i reads the inputs within a radius R of i
};

/// @brief One self-attention layer: every output position is computed from every input position.
///
/// Output i is a weighted sum over all n positions, with weights from query i
/// and every key (chapters 1 to 3): n × n edges.
/// @param positions n ≥ 1
/// @return the graph, with n inputs and n outputs
/// @throws std::invalid_argument if @p positions is 0
inline DependencyGraph self_attention_graph(std::size_t positions) {
  if (positions == 0) throw std::invalid_argument("self_attention_graph: no positions");
  DependencyGraph graph;
  for (std::size_t i = 0; i < positions; ++i) graph.inputs.push_back(graph.add_node());
  for (std::size_t i = 0; i < positions; ++i) graph.outputs.push_back(graph.add_node());
  // clang-format off
  // [self_attention_graph]
  for (std::size_t i = 0; i < positions; ++i) {    // output i
    for (std::size_t j = 0; j < positions; ++j) {  // reads input j
      graph.add_edge(graph.inputs[j], graph.outputs[i]);
    }
  }
  // [self_attention_graph]
  // clang-format on
  return graph;
}

/// @brief One recurrent layer, h_t = tanh(W h_(t−1) + U x_t): each hidden state from the input and the state before it.
///
/// Nodes: the inputs x_1 … x_n, the initial state h_0 (a vector of zeros,
/// which depends on nothing) and the states h_1 … h_n, which are the outputs.
/// Edges: x_t → h_t and h_(t−1) → h_t, 2n in all. Output t depends only on
/// inputs 1 … t.
/// @param positions n ≥ 1
/// @return the graph, with n inputs and n outputs
/// @throws std::invalid_argument if @p positions is 0
inline DependencyGraph recurrent_graph(std::size_t positions) {
  if (positions == 0) throw std::invalid_argument("recurrent_graph: no positions");
  DependencyGraph graph;
  for (std::size_t t = 0; t < positions; ++t) graph.inputs.push_back(graph.add_node());
  // clang-format off
  // [recurrent_graph]
  std::size_t previous = graph.add_node();  // h_0
  for (std::size_t t = 0; t < positions; ++t) {
    const std::size_t state = graph.add_node();  // h_t
    graph.add_edge(graph.inputs[t], state);      // U x_t
    graph.add_edge(previous, state);             // W h_(t−1)
    graph.outputs.push_back(state);
    previous = state;
  }
  // [recurrent_graph]
  // clang-format on
  return graph;
}

/// @brief One bidirectional recurrent layer: a chain of states each way, and an output that reads both.
///
/// The forward chain is recurrent_graph()'s, h→_t = tanh(W→ h→_(t−1) + U→ x_t);
/// the backward chain runs the other way, h←_t = tanh(W← h←_(t+1) + U← x_t),
/// from its own zero state h←_(n+1); the output at t reads the two states of
/// its position, y_t = A h→_t + B h←_t (Schuster and Paliwal 1997). Edges: six
/// per position, 6n in all. Every output depends on every input, through one
/// chain or the other; the path still walks along a chain, one state per
/// position it passes.
/// @param positions n ≥ 1
/// @return the graph, with n inputs and n outputs (the y_t)
/// @throws std::invalid_argument if @p positions is 0
inline DependencyGraph bidirectional_recurrent_graph(std::size_t positions) {
  if (positions == 0) throw std::invalid_argument("bidirectional_recurrent_graph: no positions");
  DependencyGraph graph;
  for (std::size_t t = 0; t < positions; ++t) graph.inputs.push_back(graph.add_node());
  std::vector<std::size_t> forward(positions), backward(positions);
  // clang-format off
  // [bidirectional_recurrent_graph]
  std::size_t previous = graph.add_node();  // h→_0
  for (std::size_t t = 0; t < positions; ++t) {
    forward[t] = graph.add_node();                // h→_t
    graph.add_edge(graph.inputs[t], forward[t]);  // U→ x_t
    graph.add_edge(previous, forward[t]);         // W→ h→_(t−1)
    previous = forward[t];
  }
  std::size_t next = graph.add_node();  // h←_(n+1)
  for (std::size_t t = positions; t-- > 0;) {  // t = positions − 1, …, 1, 0
    backward[t] = graph.add_node();                // h←_t
    graph.add_edge(graph.inputs[t], backward[t]);  // U← x_t
    graph.add_edge(next, backward[t]);             // W← h←_(t+1)
    next = backward[t];
  }
  for (std::size_t t = 0; t < positions; ++t) {
    const std::size_t output = graph.add_node();  // y_t
    graph.add_edge(forward[t], output);           // A h→_t
    graph.add_edge(backward[t], output);          // B h←_t
    graph.outputs.push_back(output);
  }
  // [bidirectional_recurrent_graph]
  // clang-format on
  return graph;
}

/// @brief One convolutional layer: output i is computed from the @p kernel inputs centred on i, @p dilation apart.
///
/// Output i reads inputs i + m · dilation for m = −(k−1)/2 … (k−1)/2, those
/// that exist: beyond either end the input is zero padding, which is not a
/// position and gets no edge. A dilation of 1 is the ordinary, contiguous
/// kernel. The kernel width must be odd, so that it is centred on its
/// position and reaches as far left as right.
/// @param positions n ≥ 1
/// @param kernel k, odd, ≥ 3
/// @param dilation the distance between neighbouring taps, ≥ 1
/// @return the graph, with n inputs and n outputs
/// @throws std::invalid_argument if a parameter is out of range
inline DependencyGraph convolution_graph(std::size_t positions, std::size_t kernel, std::size_t dilation = 1) {
  if (positions == 0) throw std::invalid_argument("convolution_graph: no positions");
  if (kernel < 3 || kernel % 2 == 0)
    throw std::invalid_argument("convolution_graph: the kernel must be odd and at least 3");
  if (dilation == 0) throw std::invalid_argument("convolution_graph: the dilation must be at least 1");
  DependencyGraph graph;
  for (std::size_t i = 0; i < positions; ++i) graph.inputs.push_back(graph.add_node());
  for (std::size_t i = 0; i < positions; ++i) graph.outputs.push_back(graph.add_node());
  const auto half = static_cast<std::ptrdiff_t>((kernel - 1) / 2);
  const auto n = static_cast<std::ptrdiff_t>(positions);
  // Any dilation of n or more leaves only the centre tap inside the sequence.
  const auto step = static_cast<std::ptrdiff_t>(std::min(dilation, positions));
  const auto edge = [&graph](std::ptrdiff_t from, std::ptrdiff_t to) {
    graph.add_edge(graph.inputs[static_cast<std::size_t>(from)], graph.outputs[static_cast<std::size_t>(to)]);
  };
  // clang-format off
  // [convolution_graph]
  for (std::ptrdiff_t i = 0; i < n; ++i) {            // output i
    for (std::ptrdiff_t m = -half; m <= half; ++m) {  // tap m
      const std::ptrdiff_t j = i + m * step;          // input j,
      if (j >= 0 && j < n) edge(j, i);                // not padding
    }
  }
  // [convolution_graph]
  // clang-format on
  return graph;
}

/// @brief One restricted self-attention layer: output i is computed from the inputs within @p radius positions of i.
///
/// The band mask of chapter 4 as a graph: output i reads input j when
/// |i − j| ≤ R. §4 of the paper speaks of "a neighborhood of size r"; with a
/// radius R the neighbourhood holds r = 2R + 1 positions (fewer at the ends).
/// @param positions n ≥ 1
/// @param radius R ≥ 1
/// @return the graph, with n inputs and n outputs
/// @throws std::invalid_argument if a parameter is out of range
inline DependencyGraph restricted_attention_graph(std::size_t positions, std::size_t radius) {
  if (positions == 0) throw std::invalid_argument("restricted_attention_graph: no positions");
  if (radius == 0) throw std::invalid_argument("restricted_attention_graph: the radius must be at least 1");
  DependencyGraph graph;
  for (std::size_t i = 0; i < positions; ++i) graph.inputs.push_back(graph.add_node());
  for (std::size_t i = 0; i < positions; ++i) graph.outputs.push_back(graph.add_node());
  // clang-format off
  // [restricted_attention_graph]
  for (std::size_t i = 0; i < positions; ++i) {    // output i
    for (std::size_t j = 0; j < positions; ++j) {  // reads input j
      const std::size_t distance = i > j ? i - j : j - i;
      if (distance <= radius) {                    // if |i − j| ≤ R
        graph.add_edge(graph.inputs[j], graph.outputs[i]);
      }
    }
  }
  // [restricted_attention_graph]
  // clang-format on
  return graph;
}

/// @brief The distance between neighbouring taps in layer @p level of a dilated stack: 1, k, k², … and round again.
///
/// Layer 0 is contiguous (dilation 1); each layer above spreads its taps k
/// times as far as the one below, so that after L layers an output reaches
/// (k^L − 1)/2 positions to either side, every offset in between included.
/// A dilation of n or more would leave only the centre tap inside the
/// sequence and connect nothing new, so the dilations stop below n and
/// start again at 1, as stacks of dilated convolutions do in practice
/// (1, 3, 9, 1, 3, 9, … for k = 3 and n = 20).
/// @param kernel k ≥ 2
/// @param level ℓ, counted from 0 at the bottom of the stack
/// @param positions n
/// @return k^(ℓ mod M), where 1, k, …, k^(M−1) are the powers of k below n (M = 1 if n ≤ 1)
/// @throws std::invalid_argument if @p kernel is below 2
inline std::size_t dilation_at(std::size_t kernel, std::size_t level, std::size_t positions) {
  if (kernel < 2) throw std::invalid_argument("dilation_at: the kernel must be at least 2");
  std::size_t powers_below_n = 1;  // M: 1 is always one of them
  for (std::size_t power = kernel; power < positions; power *= kernel) ++powers_below_n;
  std::size_t dilation = 1;
  for (std::size_t l = 0; l < level % powers_below_n; ++l) dilation *= kernel;
  return dilation;
}

/// @brief Layer @p level (from 0 at the bottom) of a stack of @p type over @p positions positions.
///
/// Every layer of a stack is the same, except for a dilated convolution,
/// whose layer ℓ has dilation dilation_at(k, ℓ, n).
/// @param type the layer type
/// @param positions n ≥ 1
/// @param kernel k, for the convolutions (odd, ≥ 3)
/// @param radius R, for restricted self-attention (≥ 1)
/// @param level ℓ
/// @return the layer's graph
/// @throws std::invalid_argument if a parameter the type uses is out of range
inline DependencyGraph layer_graph(LayerType type, std::size_t positions, std::size_t kernel, std::size_t radius,
                                   std::size_t level = 0) {
  switch (type) {
    case LayerType::self_attention:
      return self_attention_graph(positions);
    case LayerType::recurrent:
      return recurrent_graph(positions);
    case LayerType::bidirectional_recurrent:
      return bidirectional_recurrent_graph(positions);
    case LayerType::convolution:
      return convolution_graph(positions, kernel);
    case LayerType::dilated_convolution:
      return convolution_graph(positions, kernel, dilation_at(kernel, level, positions));
    case LayerType::restricted_self_attention:
      return restricted_attention_graph(positions, radius);
  }
  throw std::invalid_argument("layer_graph: unknown layer type");
}

/// @brief The multiply-adds one edge of a layer of @p type costs, for vectors of width d.
///
/// - An attention edge, input j → output i, is a score and a share of a value:
///   q_i · k_j (d multiply-adds) and w_ij v_j added into output i (d more): 2d.
///   The projections that make the queries, keys and values are not edges
///   between positions and are not counted (Table 1's O(n²·d) has no n·d² term).
/// - A recurrent edge, x_t → h_t or h_(t−1) → h_t, is a d × d matrix times a
///   vector, U x_t or W h_(t−1): d². So is each edge of a bidirectional layer,
///   the read-out's A h→_t and B h←_t included.
/// - A convolution edge, one tap of the kernel, is a d × d matrix times a
///   vector: d².
///
/// Additions of the bias, the tanh, the softmax's exponentials and the
/// division by √d_k are not multiply-adds and are not counted.
/// @param type the layer type
/// @param width d, the width of every vector (input, output and hidden state)
/// @return multiply-adds per edge
inline std::uint64_t multiply_adds_per_edge(LayerType type, std::uint64_t width) {
  // clang-format off
  // [multiply_adds_per_edge]
  switch (type) {
    case LayerType::self_attention:
    case LayerType::restricted_self_attention:
      return 2 * width;  // q_i · k_j, then w_ij v_j
    case LayerType::recurrent:
    case LayerType::bidirectional_recurrent:
    case LayerType::convolution:
    case LayerType::dilated_convolution:
      return width * width;  // a d × d matrix times a vector
  }
  // [multiply_adds_per_edge]
  // clang-format on
  throw std::invalid_argument("multiply_adds_per_edge: unknown layer type");
}

/// @brief The multiply-adds of one layer: its edges, each priced by multiply_adds_per_edge().
/// @param type the layer type the graph was built for
/// @param graph one layer (or a stack of layers of that type)
/// @param width d
/// @return the number of multiply-adds
inline std::uint64_t multiply_adds(LayerType type, const DependencyGraph& graph, std::uint64_t width) {
  return static_cast<std::uint64_t>(graph.edge_count()) * multiply_adds_per_edge(type, width);
}

/// @brief A stack of layers of one type and how many there are.
struct LayerStack {
  DependencyGraph graph;   ///< the layers, stacked with stacked()
  std::size_t layers = 0;  ///< how many layers the stack has
};

/// @brief Layers of @p type, stacked one at a time until every output position depends on every input position.
///
/// After each new layer the function asks, for every output position of the
/// stack, which input positions it now depends on: output i of the new layer
/// depends on every input that some position it reads depended on. Which
/// positions it reads, a breadth-first search inside the new layer says. The
/// stack is complete when every output has heard from every input.
///
/// A recurrent layer never gets there: output 1 does not depend on input 2
/// however many layers are stacked. For it, and for any layer type that stops
/// making progress, the function throws.
/// @param type the layer type
/// @param positions n ≥ 1
/// @param kernel k, for the convolutions (odd, ≥ 3)
/// @param radius R, for restricted self-attention (≥ 1)
/// @return the stack and its number of layers
/// @throws std::invalid_argument if a parameter the type uses is out of range, or a new layer connects no pair that
///         was not connected before
inline LayerStack stack_until_connected(LayerType type, std::size_t positions, std::size_t kernel, std::size_t radius) {
  // heard[i][j]: output position i of the stack so far depends on input position j.
  // Before any layer, position i holds input i and nothing else.
  using Heard = std::vector<std::vector<char>>;
  Heard heard(positions, std::vector<char>(positions, 0));
  for (std::size_t i = 0; i < positions; ++i) heard[i][i] = 1;
  const auto everyone_heard_everyone = [](const Heard& table) {
    for (const std::vector<char>& row : table) {
      for (const char yes : row) {
        if (!yes) return false;
      }
    }
    return true;
  };
  std::vector<DependencyGraph> layers;
  do {
    const DependencyGraph layer = layer_graph(type, positions, kernel, radius, layers.size());
    Heard now(positions, std::vector<char>(positions, 0));
    // clang-format off
    // [stack_until_connected]
    for (std::size_t p = 0; p < positions; ++p) {
      // What position p had heard reaches every output of the new layer that reads p.
      const std::vector<std::size_t> distance = breadth_first_distances(layer, layer.inputs[p]);
      for (std::size_t i = 0; i < positions; ++i) {
        if (distance[layer.outputs[i]] == unreachable) continue;
        for (std::size_t j = 0; j < positions; ++j) now[i][j] |= heard[p][j];
      }
    }
    // [stack_until_connected]
    // clang-format on
    if (now == heard && !layers.empty()) {
      throw std::invalid_argument("stack_until_connected: a new layer connects nothing new");
    }
    heard = now;
    layers.push_back(layer);
  } while (!everyone_heard_everyone(heard));
  return {stacked(layers), layers.size()};
}

/// @brief The counted figures of one layer type at one length: one row of chapter 7's table.
struct LayerCount {
  LayerType type = LayerType::self_attention;  ///< the layer type
  std::size_t positions = 0;                   ///< n
  /// Layers stacked so that every output depends on every input; 1 for the
  /// recurrent layer, which is never stacked (see stack_until_connected()).
  std::size_t layers = 0;
  /// Path lengths between the inputs and outputs of the stack (of the single
  /// layer, for the recurrent layer).
  PathLengths paths;
  std::size_t sequential_steps = 0;        ///< longest_chain() of one layer
  std::size_t stack_sequential_steps = 0;  ///< longest_chain() of the whole stack
  std::size_t edges = 0;                   ///< edges of one layer (the bottom layer of a stack)
  std::uint64_t multiply_adds = 0;         ///< multiply_adds() of one layer (the bottom layer of a stack)
  std::uint64_t stack_multiply_adds = 0;   ///< multiply_adds() of the whole stack
};

/// @brief Builds, stacks and searches the graphs of @p type at n = @p positions, and counts every figure of LayerCount.
/// @param type the layer type
/// @param positions n ≥ 1
/// @param width d, for the multiply-adds
/// @param kernel k, for the convolutions (odd, ≥ 3)
/// @param radius R, for restricted self-attention (≥ 1)
/// @return the counted figures
/// @throws std::invalid_argument if a parameter the type uses is out of range
inline LayerCount count_layer(LayerType type, std::size_t positions, std::uint64_t width, std::size_t kernel,
                              std::size_t radius) {
  LayerCount count;
  count.type = type;
  count.positions = positions;
  const DependencyGraph layer = layer_graph(type, positions, kernel, radius);
  // clang-format off
  // [count_layer]
  const LayerStack stack = type == LayerType::recurrent ? LayerStack{layer, 1}
                                                        : stack_until_connected(type, positions, kernel, radius);
  count.layers = stack.layers;
  count.paths = path_lengths(stack.graph);
  count.sequential_steps = longest_chain(layer);
  count.stack_sequential_steps = longest_chain(stack.graph);
  count.edges = layer.edge_count();
  count.multiply_adds = multiply_adds(type, layer, width);
  count.stack_multiply_adds = multiply_adds(type, stack.graph, width);
  // [count_layer]
  // clang-format on
  return count;
}

}  // namespace attention
