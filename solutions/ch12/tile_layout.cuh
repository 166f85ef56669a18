/* Solution to exercise ch12: a tile of 64-byte rows, swizzled.
 *
 * A 128-byte line of banks holds two rows here, so bank group s % 8 of slot
 * 4 r + c is 4 (r % 2) + c: the row's parity picks the half of the line, the
 * chunk the group within it. Eight consecutive rows have only two parities,
 * four rows to each half: plainly stored, the four rows of one parity put
 * chunk c in the same group, 4 ways. So the XOR must take four different
 * values across those four rows, which are r = p, p + 2, p + 4, p + 6: the
 * bits above the parity, (r / 2) % 4. Stored at c ^ ((r / 2) % 4), the eight
 * rows at one chunk land in 2 halves x 4 groups, all eight groups once. Within
 * a row the XOR by a constant only permutes its four chunks, so every slot is
 * still used once, and a store phase (two whole rows, one in each half of the
 * line) stays conflict-free. It is the pattern CUTLASS calls Swizzle<2, 4, 3>,
 * and TMA its 64-byte swizzle.
 */
#ifndef EX_CH12_TILE_LAYOUT_CUH
#define EX_CH12_TILE_LAYOUT_CUH

__host__ __device__ static inline int tile_slot(int row, int chunk)
{
    return 4 * row + (chunk ^ (row / 2 % 4));
}

#endif
