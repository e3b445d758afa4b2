#include "blocks.hpp"

namespace simhash {

bool make_block_layout(int nblocks, BlockLayout* out) noexcept {
    if (nblocks < 1 || nblocks > kMaxBlocks) return false;
    BlockLayout layout;
    layout.nblocks = nblocks;
    const int base = 64 / nblocks;
    const int wider = 64 % nblocks;  // this many leading blocks get one extra bit
    int top = 64;                    // bit position just above the current block
    for (int i = 0; i < nblocks; ++i) {
        layout.width[i] = base + (i < wider ? 1 : 0);
        top -= layout.width[i];
        layout.shift[i] = top;
    }
    *out = layout;
    return true;
}

}  // namespace simhash
