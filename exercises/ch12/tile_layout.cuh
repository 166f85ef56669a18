/* Exercise ch12: a shared-memory tile that ldmatrix reads without bank conflicts.
 *
 * ch12's mma.sync stages keep their bf16 tiles in rows of 128 bytes and store
 * chunk c of row r at chunk c ^ (r % 8) (chapters/ch12_gemm/swizzle.h says
 * why). Here the slices are half as wide, to fit more pipeline stages: a tile
 * of 64 rows of 32 bf16, 64 bytes a row, four 16-byte chunks. Its 256 chunks
 * fill 256 slots of 16 bytes, slot s at byte 16 s of the tile, no padding.
 *
 * Shared memory has 32 banks of 4 bytes: slot s covers banks 4 (s % 8) ..
 * 4 (s % 8) + 3, so two slots with the same s % 8 share their banks, and
 * two 16-byte accesses of one phase to them are served one after the other.
 *
 * The tile is used two ways (tests/ex_ch12_kernel.cu, a small GEMM):
 *  - stored: 16 bytes a thread, chunks in row order; a warp's 32 lanes store
 *    32 consecutive chunks (8 rows, four chunks each) in four phases of 8
 *    lanes: phase p's lanes store all four chunks of two rows, 2p and 2p + 1
 *    of those 8;
 *  - read by ldmatrix: each 8-lane phase gives the addresses of one 8 x 8
 *    matrix: 8 consecutive rows 8 q .. 8 q + 7, all at the same chunk c.
 * Stored plainly (the code below: slot 4 r + c), rows r and r + 2 share their
 * banks and an ldmatrix phase takes 4 passes.
 *
 * Your job: tile_slot(row, chunk), the slot of chunk `chunk` (0..3) of row
 * `row` (0..63), so that the 256 chunks fill the 256 slots, one each, and
 * every phase of both uses touches 8 different bank groups s % 8. The
 * chapter's XOR is the idea, not the answer: a row here holds 4 chunks, not 8.
 *
 * Graded (tests/test_ex_ch12.cu): on the CPU, no GPU needed, every slot and
 * every lane's bank in every phase of both uses; on a GPU, tile_slot as the
 * device computes it, and the GEMM through your tile, exact on small integers
 * (skipped without one). Then: make grade EX=ch12 (stuck? make hint EX=ch12)
 */
#ifndef EX_CH12_TILE_LAYOUT_CUH
#define EX_CH12_TILE_LAYOUT_CUH

__host__ __device__ static inline int tile_slot(int row, int chunk)
{
    return 4 * row + chunk; /* TODO: no bank conflicts */
}

#endif
