/// @file dependency_graph.hpp
/// @brief Which vectors are computed from which: a graph, searched breadth first for path lengths and chains.
///
/// A node is one vector: an input position, an output position, or a state in
/// between (a recurrent layer's hidden state). An edge u → v says that v is
/// computed directly from u. Chapter 7 builds such a graph for one layer of
/// each type in Table 1 of the paper, stacks layers, and counts two things
/// the table states in O-notation: the longest path a signal must travel
/// between an input position and an output position, and the longest chain
/// of steps that must wait for one another.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <queue>
#include <stdexcept>
#include <vector>

namespace attention {

/// @brief What breadth_first_distances() reports for a node no path reaches.
inline constexpr std::size_t unreachable = std::numeric_limits<std::size_t>::max();

/// @brief Which vectors are computed directly from which: nodes, edges, and the nodes of the positions.
///
/// Nodes are numbered 0, 1, 2, … in the order add_node() creates them. The
/// graph keeps, for every node, the nodes computed from it; inputs and
/// outputs say which nodes hold input position i and output position i.
struct DependencyGraph {
  /// readers[u]: the nodes computed directly from node u, one entry per edge u → v.
  std::vector<std::vector<std::size_t>> readers;
  /// inputs[i]: the node that holds input position i (positions counted from 0).
  std::vector<std::size_t> inputs;
  /// outputs[i]: the node that holds output position i.
  std::vector<std::size_t> outputs;

  /// @brief Adds a node with no edges.
  /// @return its number
  std::size_t add_node() {
    readers.emplace_back();
    return readers.size() - 1;
  }

  /// @brief Adds the edge @p from → @p to: node @p to is computed directly from node @p from.
  /// @param from a node number
  /// @param to a node number
  /// @throws std::out_of_range if either node does not exist
  void add_edge(std::size_t from, std::size_t to) {
    if (from >= readers.size() || to >= readers.size()) {
      throw std::out_of_range("DependencyGraph::add_edge: no such node");
    }
    readers[from].push_back(to);
  }

  /// @brief How many nodes the graph has.
  /// @return the number of nodes
  std::size_t node_count() const { return readers.size(); }

  /// @brief How many edges the graph has.
  /// @return the number of edges
  std::size_t edge_count() const {
    std::size_t edges = 0;
    for (const std::vector<std::size_t>& out : readers) edges += out.size();
    return edges;
  }
};

/// @brief The length of the shortest path from @p source to every node, counted in edges.
///
/// Breadth-first search: first every node one edge away, then every node two
/// edges away, and so on. A node is given its distance the first time the
/// search reaches it, and no later path can be shorter.
/// @param graph the graph to search
/// @param source the node to start from
/// @return one entry per node: the number of edges on a shortest path from
///         @p source, 0 for @p source itself, attention::unreachable if there is no path
/// @throws std::out_of_range if @p source is not a node of @p graph
inline std::vector<std::size_t> breadth_first_distances(const DependencyGraph& graph, std::size_t source) {
  if (source >= graph.node_count()) {
    throw std::out_of_range("breadth_first_distances: no such node");
  }
  // clang-format off
  // [breadth_first_distances]
  std::vector<std::size_t> distance(graph.node_count(), unreachable);
  std::queue<std::size_t> waiting;
  distance[source] = 0;
  waiting.push(source);
  while (!waiting.empty()) {
    const std::size_t node = waiting.front();
    waiting.pop();
    for (const std::size_t next : graph.readers[node]) {
      if (distance[next] == unreachable) {  // the first visit is along a shortest path
        distance[next] = distance[node] + 1;
        waiting.push(next);
      }
    }
  }
  return distance;
  // [breadth_first_distances]
  // clang-format on
}

/// @brief What path_lengths() finds between the input positions and the output positions.
struct PathLengths {
  /// The longest of the shortest paths, in edges, over every pair (input i, output j)
  /// that some path connects: the paper's "maximum path length". 0 if no pair is connected.
  std::size_t maximum = 0;
  /// How many pairs (input i, output j) a path connects.
  std::size_t connected_pairs = 0;
  /// How many pairs there are: inputs × outputs.
  std::size_t pairs = 0;
  /// to_last_output[i]: the shortest path from input i to the last output, in
  /// edges, or attention::unreachable: how far each input is from the end of the sequence.
  std::vector<std::size_t> to_last_output;

  /// @brief Whether every output depends on every input.
  /// @return true if a path connects every pair
  bool connects_every_pair() const { return connected_pairs == pairs; }
};

/// @brief The maximum path length between input and output positions, found by a breadth-first search from every input.
///
/// For each input position, breadth_first_distances() gives the shortest
/// path to each output position. The maximum path length is the longest of
/// these shortest paths: the farthest any input is from any output that
/// depends on it. Pairs with no path between them (an early output of a
/// recurrent layer does not depend on a later input) are counted in
/// PathLengths::pairs but not in PathLengths::connected_pairs, and do not
/// enter the maximum.
/// @param graph a graph whose inputs and outputs are set, each a node of it (an input that is not throws
///        std::out_of_range; an output that is not is not checked)
/// @return the maximum, how many pairs are connected, and how far each input is from the last output
inline PathLengths path_lengths(const DependencyGraph& graph) {
  PathLengths found;
  found.pairs = graph.inputs.size() * graph.outputs.size();
  // clang-format off
  // [path_lengths]
  for (const std::size_t input : graph.inputs) {
    const std::vector<std::size_t> distance = breadth_first_distances(graph, input);
    for (const std::size_t output : graph.outputs) {
      if (distance[output] != unreachable) {
        ++found.connected_pairs;
        found.maximum = std::max(found.maximum, distance[output]);
      }
    }
    if (!graph.outputs.empty()) {
      found.to_last_output.push_back(distance[graph.outputs.back()]);
    }
  }
  // [path_lengths]
  // clang-format on
  return found;
}

/// @brief The longest chain of steps that must wait for one another: the longest path in the graph, in edges.
///
/// A node can be computed once every node it is computed from is done. Nodes
/// without incoming edges are ready at step 0; every other node is ready one
/// step after the last of the nodes it reads. The latest ready step is the
/// number of steps that cannot run side by side however many processors
/// there are: Table 1's "minimum number of sequential operations" when the
/// graph is one layer. The nodes are taken in an order in which every node
/// comes after the nodes it reads (Kahn's topological sort).
/// @param graph a graph without cycles
/// @return the number of edges on the longest path; 0 for a graph without edges
/// @throws std::invalid_argument if the graph has a cycle
inline std::size_t longest_chain(const DependencyGraph& graph) {
  const std::size_t nodes = graph.node_count();
  std::vector<std::size_t> unread_inputs(nodes, 0);  // edges into each node not yet taken
  for (const std::vector<std::size_t>& out : graph.readers) {
    for (const std::size_t next : out) ++unread_inputs[next];
  }
  // clang-format off
  // [longest_chain]
  std::vector<std::size_t> ready_at(nodes, 0);
  std::queue<std::size_t> ready;
  for (std::size_t node = 0; node < nodes; ++node) {
    if (unread_inputs[node] == 0) ready.push(node);
  }
  std::size_t longest = 0;
  std::size_t done = 0;
  while (!ready.empty()) {
    const std::size_t node = ready.front();
    ready.pop();
    ++done;
    longest = std::max(longest, ready_at[node]);
    for (const std::size_t next : graph.readers[node]) {
      // next is ready one step after the last node it reads
      ready_at[next] = std::max(ready_at[next], ready_at[node] + 1);
      if (--unread_inputs[next] == 0) ready.push(next);
    }
  }
  // [longest_chain]
  // clang-format on
  if (done != nodes) {
    throw std::invalid_argument("longest_chain: the graph has a cycle");
  }
  return longest;
}

/// @brief Layers one on top of another: the outputs of each layer become the inputs of the next.
///
/// Output position i of layer ℓ and input position i of layer ℓ + 1 become
/// the same node. Every other node of every layer is kept as it is. The
/// stack's inputs are those of the first layer, its outputs those of the last.
/// @param layers the layers, bottom first; each must have as many inputs as the one below has outputs
/// @return the stacked graph
/// @throws std::invalid_argument if @p layers is empty or the positions do not match
inline DependencyGraph stacked(const std::vector<DependencyGraph>& layers) {
  if (layers.empty()) {
    throw std::invalid_argument("stacked: no layers");
  }
  DependencyGraph stack;
  std::vector<std::size_t> below;  // the nodes of the outputs of the layer below
  for (std::size_t level = 0; level < layers.size(); ++level) {
    const DependencyGraph& layer = layers[level];
    if (level > 0 && layer.inputs.size() != below.size()) {
      throw std::invalid_argument("stacked: a layer has a different number of inputs than the outputs below it");
    }
    // Where each node of this layer goes in the stack.
    std::vector<std::size_t> placed(layer.node_count(), unreachable);
    for (std::size_t i = 0; i < layer.inputs.size() && level > 0; ++i) {
      placed[layer.inputs[i]] = below[i];
    }
    for (std::size_t node = 0; node < layer.node_count(); ++node) {
      if (placed[node] == unreachable) placed[node] = stack.add_node();
    }
    for (std::size_t node = 0; node < layer.node_count(); ++node) {
      for (const std::size_t next : layer.readers[node]) stack.add_edge(placed[node], placed[next]);
    }
    if (level == 0) {
      for (const std::size_t input : layer.inputs) stack.inputs.push_back(placed[input]);
    }
    below.clear();
    for (const std::size_t output : layer.outputs) below.push_back(placed[output]);
  }
  stack.outputs = below;
  return stack;
}

}  // namespace attention
