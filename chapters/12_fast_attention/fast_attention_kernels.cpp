// Chapter 12: the library's kernels that the benchmark times, compiled once, here, for double and float.
// fast_attention.hpp declares them extern, so no file that includes it compiles them again: fast_attention.cpp, the
// rest of the computation, compiles beside this file on a second core, and an edit to it leaves this file as it was.
#include "attention/streaming_attention.hpp"

namespace attention {

template MatrixOf<double> streaming_attention<double>(const MatrixOf<double>&, const MatrixOf<double>&,
                                                      const MatrixOf<double>&, const StreamingOptions&,
                                                      StreamingBuffers<double>&);
template MatrixOf<float> streaming_attention<float>(const MatrixOf<float>&, const MatrixOf<float>&,
                                                    const MatrixOf<float>&, const StreamingOptions&,
                                                    StreamingBuffers<float>&);
template void buffered_attention<double>(const MatrixOf<double>&, const MatrixOf<double>&, const MatrixOf<double>&,
                                         AttentionBuffers<double>&, KeyRange, bool);
template void tile_product<double>(const detail::ConstTileRef<double>&, const PackedColumns<double>&,
                                   detail::TileRef<double>, bool, KeysUpTo);
template void tile_product<float>(const detail::ConstTileRef<float>&, const PackedColumns<float>&,
                                  detail::TileRef<float>, bool, KeysUpTo);

}  // namespace attention
