// The self-test matrix compiled as C++: same header, same semantics.
#include "selftest.c"
