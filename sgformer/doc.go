// Package sgformer is the Go implementation of Subgraphormer (Bar-Shalom, Bevilacqua and Maron,
// "Subgraphormer: Unifying Subgraph GNNs and Graph Transformers via Graph Products", ICML 2024).
//
// A Subgraph GNN with node marking processes the bag of n subgraphs of an n-node graph G; the
// paper views that bag as one product graph on the n² nodes (s, v) — node v in the subgraph
// rooted at s — and runs attention-based message passing on it. The library is split by idea,
// with imports flowing one way:
//
//   - [github.com/sgformer/sgformer/sgformer/graph]: undirected graphs with node and edge
//     features, validated on construction; the Laplacian L = D − A.
//   - [github.com/sgformer/sgformer/sgformer/product]: the product-graph connectivities of
//     Sec. 3 and Appendices A–B (internal, external, point, global, and the k-tuple forms),
//     node marking, and stochastic subgraph sampling (Sec. 4.3).
//   - [github.com/sgformer/sgformer/sgformer/pe]: the product-graph positional encodings of
//     Sec. 4.2 (Prop. 4.1) and their k-tuple generalisation, computed from the eigenpairs of G
//     alone, never from the n²×n² Laplacian.
//   - [github.com/sgformer/sgformer/sgformer/preprocess]: everything above for a whole
//     dataset, in parallel, with a versioned on-disk cache.
package sgformer
