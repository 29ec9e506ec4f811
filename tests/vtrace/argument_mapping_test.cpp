// argument_mapping: kernel pointer arguments to allocations, their names and parameter types.
#include <doctest/doctest.h>

#include "tools/vtrace/access/argument_mapping.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

TEST_CASE("argument_mapping: pointer words map to allocations and name them") {
  AllocationMap m;
  m.add(allocation(1, 0x10000, 4000));
  m.add(allocation(2, 0x20000, 4000));
  auto args = map_pointer_arguments(param_words({{0, 0x10000}, {1, 1000}, {2, 0x20010}, {3, 0}}), m);
  REQUIRE(args.size() == 2);
  CHECK(args[0].index == 0);
  CHECK(args[0].allocation == 1);
  CHECK(args[1].index == 2);
  CHECK(args[1].offset == 0x10);
  std::vector<Allocation> allocations = {allocation(1, 0x10000, 4000), allocation(2, 0x20000, 4000)};
  allocations[1].name = "kept";
  name_allocations(allocations, "void fill(float*, int, float*)", args);
  CHECK(allocations[0].name == "fill.arg0");
  CHECK(allocations[1].name == "kept");
}

TEST_CASE("argument_mapping: parameter types from demangled names") {
  using Types = std::vector<std::string>;
  CHECK(parameter_types("vector_add(float const*, float const*, float*, int)") ==
        Types{"float const*", "float const*", "float*", "int"});
  CHECK(parameter_types("void ns::gemm<float, (int)128>(Tile<float, 2>, float*)") == Types{"Tile<float, 2>", "float*"});
  CHECK(parameter_types("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                        "std::array<char*, 1>>(int, at::native::FillFunctor<float>, std::array<char*, 1>)") ==
        Types{"int", "at::native::FillFunctor<float>", "std::array<char*, 1>"});
  CHECK(parameter_types("k(void (*)(int), float*)") == Types{"void (*)(int)", "float*"});
  CHECK(parameter_types("add_kernel").empty());  // Triton: no signature
  CHECK(parameter_types("k()").empty());
  CHECK(parameter_types("k(void)").empty());
  CHECK(argument_label(1, "float const*") == "argument 1 (float const*)");
  CHECK(argument_label(0, "") == "argument 0");
}

TEST_CASE("argument_mapping: an access goes to the argument with the largest pointer at or below it") {
  // One 1 MiB segment holding two tensors (x at +0, y at +4096) and a separate buffer z.
  std::vector<PointerArgument> args = {{0, 0x100000, 1, 0}, {1, 0x101000, 1, 0x1000}, {3, 0x200000, 2, 0}};
  LaunchArguments launch(args);
  CHECK(launch.argument_for(1, 0x100010) == 0);
  CHECK(launch.argument_for(1, 0x101000) == 1);
  CHECK(launch.argument_for(1, 0x1fffff) == 1);
  CHECK(launch.argument_for(2, 0x200400) == 3);
  CHECK(launch.argument_for(2, 0x1ffff0) == 3);  // below every argument into it: the lowest one
  CHECK(launch.argument_for(5, 0x500000) == -1);
  CHECK(LaunchArguments().argument_for(1, 0x100000) == -1);
}
