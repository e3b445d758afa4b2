// The graph of rows within a radius of each other, as the batch functions
// (simhash_pairs, simhash_clusters) build it from the pairs the index walk
// finds: a map from a row's 64-bit id (a packed heap tid, never 0) to a
// dense node number, and union-find over those numbers.  Pure C++, no
// allocation, no exceptions: the caller owns every array (the glue pallocs
// them, and grows the map by rehashing into larger arrays), so memory grows
// with the rows that have a neighbour, never with the pairs.
#pragma once

#include <cstdint>

namespace simhash {

// Open addressing with linear probing; key 0 marks an empty slot.
// capacity is a power of two; the caller grows the table (rehash_into) once
// full() says so, which keeps the load at most one half.
struct IdMap {
    uint64_t* keys;     // capacity slots, 0 = empty
    uint32_t* values;   // capacity slots
    uint64_t capacity;  // a power of two
    uint64_t size;      // keys held

    static uint64_t slot_of(uint64_t key, uint64_t capacity) noexcept {
        // Fibonacci hashing: packed tids differ mostly in their low bits
        return (key * UINT64_C(0x9E3779B97F4A7C15)) >> 1 & (capacity - 1);
    }
    bool full() const noexcept { return 2 * (size + 1) > capacity; }

    // The value of key, or UINT32_MAX when absent.
    uint32_t find(uint64_t key) const noexcept {
        for (uint64_t s = slot_of(key, capacity);; s = (s + 1) & (capacity - 1)) {
            if (keys[s] == key) return values[s];
            if (keys[s] == 0) return UINT32_MAX;
        }
    }
    // The value of key; absent, it is inserted with value and *added is set.
    // The table must not be full().
    uint32_t find_or_add(uint64_t key, uint32_t value, bool* added) noexcept {
        for (uint64_t s = slot_of(key, capacity);; s = (s + 1) & (capacity - 1)) {
            if (keys[s] == key) {
                *added = false;
                return values[s];
            }
            if (keys[s] == 0) {
                keys[s] = key;
                values[s] = value;
                size++;
                *added = true;
                return value;
            }
        }
    }
    // Moves every entry into `to` (empty, with zeroed keys, larger capacity).
    void rehash_into(IdMap* to) const noexcept {
        for (uint64_t s = 0; s < capacity; s++)
            if (keys[s] != 0) {
                bool added;
                to->find_or_add(keys[s], values[s], &added);
            }
    }
};

// Disjoint sets over nodes 0..n-1.  Each set's root is its node of smallest
// rank[] value (the caller gives rank: the row's place in the walk order), so
// the representative a set ends with does not depend on the order in which
// its pairs arrived.
struct UnionFind {
    uint32_t* parent;      // parent[i] == i: a root
    const uint64_t* rank;  // per node; smaller wins

    uint32_t find(uint32_t x) const noexcept {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];  // path halving
            x = parent[x];
        }
        return x;
    }
    void unite(uint32_t a, uint32_t b) const noexcept {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (rank[b] < rank[a] || (rank[b] == rank[a] && b < a)) {
            uint32_t t = a;
            a = b;
            b = t;
        }
        parent[b] = a;
    }
};

// "Keep the first": rows are walked in rank order; a row is kept unless a row
// already kept lies within the radius, and a row that is not kept names the
// first such kept row (its representative).  Rows that are copies of one
// fingerprint need no edges among themselves beyond one to the copy that
// comes first (their leader): a copy is never kept (its leader, or the kept
// row its leader names, is within the radius and earlier), and names what its
// leader names (the leader if kept).  So the walk takes the edges of each
// later node in increasing order of the earlier one, and an edge either says
// "neighbour" or "my leader".
struct KeepFirst {
    bool* kept;          // per node, true until an earlier kept neighbour is found
    uint32_t* rep;       // per node: itself, or the kept node it names
    uint32_t current;    // the later node whose edges are being taken
    bool decided;        // current has its representative

    // Every node kept and its own representative.
    void begin(uint32_t n) noexcept {
        for (uint32_t i = 0; i < n; i++) {
            kept[i] = true;
            rep[i] = i;
        }
        current = UINT32_MAX;
        decided = false;
    }
    // An edge from `earlier` to `later`; edges come sorted by later's rank,
    // then by earlier's rank, so every earlier node is final when used.
    void edge(uint32_t earlier, uint32_t later, bool leader_edge) noexcept {
        if (later != current) {
            current = later;
            decided = false;
        }
        if (decided) return;
        if (leader_edge) {
            kept[later] = false;
            rep[later] = kept[earlier] ? earlier : rep[earlier];
            decided = true;
        } else if (kept[earlier]) {
            kept[later] = false;
            rep[later] = earlier;
            decided = true;
        }
    }
};

}  // namespace simhash
