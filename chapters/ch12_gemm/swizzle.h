/* swizzle.h - where a 16-byte chunk of a shared-memory tile lives (gpu_tensor.cu).
 *
 * The mma.sync stages keep their bf16 tiles in shared memory in rows of 128
 * bytes (64 bf16 = eight 16-byte chunks; B's rows are 256 bytes, two such
 * segments side by side). Shared memory has 32 banks of 4 bytes, so a
 * 128-byte line touches every bank once and a 16-byte chunk covers 4 banks:
 * chunk c of a line uses banks 4c .. 4c + 3. An ldmatrix reads 8 rows of 16
 * bytes per phase (8 lanes give one address each), all at the same logical
 * chunk of 8 consecutive rows. Stored plainly, those 8 chunks sit at the same
 * offset in 8 lines, on the same 4 banks: an 8-way conflict, 8 passes.
 *
 * The swizzle stores logical chunk c of row r at physical chunk c ^ (r % 8).
 * Eight consecutive rows have the eight values r % 8 = 0..7, so the XOR sends
 * one logical chunk to eight different physical chunks: 8 x 4 = all 32 banks
 * once, one pass. Within one row the XOR by a constant is a permutation of
 * the chunks, so a phase that writes the 8 chunks of one row (the copy from
 * global memory) is conflict-free too. The XOR changes only the low three bits
 * of the chunk index, so in a row longer than 128 bytes (B's) a chunk stays in
 * its own 128-byte segment and the same argument holds segment by segment.
 * No padding, no wasted bytes; it is the pattern Hopper's TMA calls its
 * 128-byte swizzle.
 *
 * Pure integer code, for the kernels and for host C (the CPU tests).
 */
#ifndef CH12_SWIZZLE_H
#define CH12_SWIZZLE_H

#ifdef __CUDACC__
#define SWIZZLE_FN __host__ __device__ static inline
#else
#define SWIZZLE_FN static inline
#endif

/* The physical 16-byte chunk of logical chunk `chunk` in row `row` of a tile
 * whose rows are 128 bytes (or a multiple of 128: see above). */
SWIZZLE_FN int swizzle_chunk(int row, int chunk)
{
    return chunk ^ (row & 7);
}

#endif
