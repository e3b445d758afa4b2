// Unit tests for the batch functions' row graph (row_graph.hpp): the id map,
// union-find with ranked roots, and "keep the first" against a brute-force
// walk of the whole graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "row_graph.hpp"

using namespace simhash;

namespace {

struct OwnedMap {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> values;
    IdMap map;
    explicit OwnedMap(uint64_t cap) : keys(cap, 0), values(cap, 0), map{keys.data(), values.data(), cap, 0} {}
};

}  // namespace

TEST(IdMap, FindsWhatWasAddedAndGrows) {
    auto m = std::make_unique<OwnedMap>(4);
    std::mt19937_64 rng(7);
    std::map<uint64_t, uint32_t> truth;
    for (uint32_t i = 0; i < 5000; i++) {
        uint64_t key = (rng() % 3000) + 1;  // repeats on purpose
        if (m->map.full()) {
            auto bigger = std::make_unique<OwnedMap>(m->map.capacity * 2);
            m->map.rehash_into(&bigger->map);
            EXPECT_EQ(bigger->map.size, m->map.size);
            m = std::move(bigger);
        }
        bool added;
        uint32_t v = m->map.find_or_add(key, (uint32_t) truth.size(), &added);
        auto it = truth.find(key);
        if (it == truth.end()) {
            EXPECT_TRUE(added);
            truth[key] = v;
        } else {
            EXPECT_FALSE(added);
            EXPECT_EQ(v, it->second);
        }
    }
    EXPECT_EQ(m->map.size, truth.size());
    for (auto& kv : truth) EXPECT_EQ(m->map.find(kv.first), kv.second);
    EXPECT_EQ(m->map.find(999999), UINT32_MAX);
    EXPECT_LE(2 * m->map.size, m->map.capacity);
}

TEST(UnionFind, RootIsTheSmallestRankWhateverTheOrder) {
    const uint32_t n = 200;
    std::mt19937_64 rng(11);
    std::vector<uint64_t> rank(n);
    for (auto& r : rank) r = rng() % 1000;
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (int i = 0; i < 150; i++) edges.push_back({(uint32_t) (rng() % n), (uint32_t) (rng() % n)});
    std::vector<uint32_t> first;
    for (int round = 0; round < 3; round++) {
        std::vector<uint32_t> parent(n);
        for (uint32_t i = 0; i < n; i++) parent[i] = i;
        UnionFind uf{parent.data(), rank.data()};
        std::shuffle(edges.begin(), edges.end(), rng);
        for (auto& e : edges) uf.unite(e.first, e.second);
        // brute force: components by repeated relaxation
        std::vector<uint32_t> comp(n);
        for (uint32_t i = 0; i < n; i++) comp[i] = i;
        for (bool changed = true; changed;) {
            changed = false;
            for (auto& e : edges) {
                uint32_t m = std::min(comp[e.first], comp[e.second]);
                if (comp[e.first] != m || comp[e.second] != m) changed = true;
                comp[e.first] = comp[e.second] = m;
            }
        }
        std::vector<uint32_t> roots(n);
        for (uint32_t i = 0; i < n; i++) {
            roots[i] = uf.find(i);
            for (uint32_t j = 0; j < n; j++)
                if (comp[j] == comp[i]) {
                    // the root is in i's component and no member ranks below it
                    EXPECT_TRUE(rank[j] > rank[roots[i]] || (rank[j] == rank[roots[i]] && j >= roots[i]));
                }
            EXPECT_EQ(comp[roots[i]], comp[i]);
        }
        if (round == 0) first = roots;
        EXPECT_EQ(roots, first);  // deterministic whatever the edge order
    }
}

// Brute force "keep the first" on the full graph (copies linked to every
// row they equal), against KeepFirst fed with leader edges for copies and
// neighbour edges among leaders only.
TEST(KeepFirst, MatchesTheWalkOfTheWholeGraph) {
    std::mt19937_64 rng(3);
    for (int round = 0; round < 200; round++) {
        const uint32_t n = 2 + rng() % 40;
        // each node has a "fingerprint" class; classes near each other at random
        uint32_t nclass = 1 + rng() % n;
        std::vector<uint32_t> cls(n);
        for (auto& c : cls) c = rng() % nclass;
        std::vector<std::vector<bool>> near(nclass, std::vector<bool>(nclass, false));
        for (uint32_t a = 0; a < nclass; a++) {
            near[a][a] = true;
            for (uint32_t b = a + 1; b < nclass; b++) near[a][b] = near[b][a] = rng() % 4 == 0;
        }
        // brute force: walk nodes 0..n-1 (rank = index)
        std::vector<bool> kept(n);
        std::vector<uint32_t> rep(n);
        for (uint32_t y = 0; y < n; y++) {
            kept[y] = true;
            rep[y] = y;
            for (uint32_t x = 0; x < y; x++)
                if (kept[x] && near[cls[x]][cls[y]]) {
                    kept[y] = false;
                    rep[y] = x;
                    break;
                }
        }
        // the reduced edges: copy -> its class's first node; first nodes pairwise
        std::vector<uint32_t> leader(nclass, UINT32_MAX);
        for (uint32_t y = 0; y < n; y++)
            if (leader[cls[y]] == UINT32_MAX) leader[cls[y]] = y;
        struct E {
            uint32_t later, earlier;
            bool leader_edge;
        };
        std::vector<E> edges;
        for (uint32_t y = 0; y < n; y++) {
            if (leader[cls[y]] != y) {
                edges.push_back({y, leader[cls[y]], true});
                continue;
            }
            for (uint32_t x = 0; x < y; x++)
                if (leader[cls[x]] == x && near[cls[x]][cls[y]]) edges.push_back({y, x, false});
        }
        std::shuffle(edges.begin(), edges.end(), rng);
        std::sort(edges.begin(), edges.end(),
                  [](const E& a, const E& b) { return a.later != b.later ? a.later < b.later : a.earlier < b.earlier; });
        std::vector<char> k(n);
        std::vector<uint32_t> r(n);
        KeepFirst kf{reinterpret_cast<bool*>(k.data()), r.data(), 0, false};
        kf.begin(n);
        for (auto& e : edges) kf.edge(e.earlier, e.later, e.leader_edge);
        for (uint32_t y = 0; y < n; y++) {
            EXPECT_EQ((bool) k[y], (bool) kept[y]) << "round " << round << " node " << y;
            EXPECT_EQ(r[y], rep[y]) << "round " << round << " node " << y;
        }
    }
}
