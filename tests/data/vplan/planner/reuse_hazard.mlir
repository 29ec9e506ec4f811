// Two reuse groups of the WS planner (buffer.id) shared by a consumer partition and a producer partition.
// Group 0 (a, b) is ordered: partition0 reads a, then arrives on %bar; partition1 waits on %bar before it writes b.
// Group 1 (c, d) is not: partition0 reads c while partition1 may already write d into the same memory.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @hazard(%arg0: i32) {
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>
    %a = ttg.local_alloc {buffer.copy = 1 : i32, buffer.id = 0 : i32} : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("a")
    %b = ttg.local_alloc {buffer.copy = 1 : i32, buffer.id = 0 : i32} : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("b")
    %c = ttg.local_alloc {buffer.copy = 1 : i32, buffer.id = 1 : i32} : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("c")
    %d = ttg.local_alloc {buffer.copy = 1 : i32, buffer.id = 1 : i32} : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("d")
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("bar")
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%a, %b, %c, %d, %bar, %cst)
    default {
      ttg.warp_yield
    }
    partition0(%a0: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %b0: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %c0: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %d0: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %bar0: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %cst0: tensor<64x64xf16, #blocked>) num_warps(4) {
      %x = ttg.local_load %a0 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
      ttng.arrive_barrier %bar0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      %y = ttg.local_load %c0 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
      ttg.warp_return
    }
    partition1(%a1: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %b1: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %c1: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %d1: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %bar1: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %cst1: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0_i32_1 = arith.constant 0 : i32
      ttg.local_store %cst1, %d1 : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttng.wait_barrier %bar1, %c0_i32_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttg.local_store %cst1, %b1 : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }
}
