// The target that builds the precompiled standard headers (CMakeLists.txt, slotkv_pch).
