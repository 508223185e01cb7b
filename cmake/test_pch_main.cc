// The executable that makes the tests' shared precompiled header
// (cmake/test_pch.cmake); it does nothing itself.
int main() { return 0; }
