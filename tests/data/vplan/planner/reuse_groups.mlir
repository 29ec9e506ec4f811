// Hand-written after the facts of the WS memory planner's tests (facebookexperimental/triton,
// test/Hopper/WarpSpecialization): the planner stamps buffer.id on every ttg.local_alloc / ttng.tmem_alloc (allocs
// sharing an id are one reuse group), buffer.copy (how many copies the group gets) and, for TMEM members placed
// side by side in one allocation, buffer.offset (columns from the group's start). allocation.offset here is an
// array (one entry per partition), the form warp-specialized code can carry.
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @reuse(%arg0: !tt.ptr<f16>) {
    %a = ttg.local_alloc {allocation.offset = array<i32: 0, 0>, buffer.copy = 2 : i32, buffer.id = 0 : i32} : () -> !ttg.memdesc<2x128x64xf16, #shared, #smem, mutable> loc("a")
    %b = ttg.local_alloc {allocation.offset = array<i32: 0, 0>, buffer.copy = 2 : i32, buffer.id = 0 : i32} : () -> !ttg.memdesc<2x128x64xf16, #shared, #smem, mutable> loc("b")
    %c = ttg.local_alloc {allocation.offset = array<i32: 32768, 32768>, buffer.copy = 1 : i32, buffer.id = 1 : i32} : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("c")
    %acc = ttng.tmem_alloc {buffer.copy = 1 : i32, buffer.id = 2 : i32, buffer.offset = 0 : i32} : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    %p = ttng.tmem_alloc {buffer.copy = 1 : i32, buffer.id = 2 : i32, buffer.offset = 64 : i32} : () -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable> loc("p")
    tt.return
  }
}
