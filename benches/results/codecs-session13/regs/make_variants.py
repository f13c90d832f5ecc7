"""Hand variants of call 6's generated 16-bit ZVC compress kernels (calls 7-10).

v0 = plane chunks (call6/src/zvc_c_half1_pc1_b128_p0_0.cu), v1 = per unit
(call6/src/zvc_c_half1_pc0_b128_p0_0.cu). Run from a folder holding v0.cu
and v1.cu; the variable names are those of that generated source.
"""


def loop_end(s, start):
    """Index just past the brace that closes the block opened after `start`."""
    depth, k = 0, s.index("{", start)
    while True:
        depth += {"{": 1, "}": -1}.get(s[k], 0)
        if depth == 0:
            return k + 1
        k += 1


v0, v1 = open("v0.cu").read(), open("v1.cu").read()
PASS1 = "for (uint32 l_mut_711 = uint32(0);"
PASS2 = "for (uint32 l_mut_836 = uint32(0);"
OUTER = "for (uint32 l_mut_7 = uint32(0);"
out = {}
# v2: the two ballot loops not unrolled
out["v2"] = v0.replace(PASS1, "\n#pragma unroll 1\n" + PASS1).replace(PASS2, "\n#pragma unroll 1\n" + PASS2)
# v3: pass-2 stores removed
a, b = v0.index("if (l_850) {"), v0.index("const uint32 l_870 = uint32(__popc(l_857));")
out["v3"] = v0[:a] + v0[b:]
# v4: pass-2 loop removed
a, b = v0.index(PASS2), v0.index("const bool l_873 = l_833 == uint32(0);")
out["v4"] = v0[:a] + v0[b:]
# v5: pass-1 loop removed
a = v0.index(PASS1)
out["v5"] = v0[:a] + v0[loop_end(v0, a):]
# v6: both removed
a = out["v4"].index(PASS1)
out["v6"] = out["v4"][:a] + out["v4"][loop_end(out["v4"], a):]
# v7 / v8: the loop over a cube's tiles not unrolled (plane / per unit)
out["v7"] = v0.replace(OUTER, "\n#pragma unroll 1\n" + OUTER)
out["v8"] = v1.replace(OUTER, "\n#pragma unroll 1\n" + OUTER)
# v9 / v10: the payload write (32 unrolled blocks) as a loop, unroll 1 / 4
a = v0.index("const uint32 l_973 = uint32(0) + threadIdxGlobal;")
end = "buffer_2[l_1347] = l_1356;\n}\n"
b = v0.index(end) + len(end)
loop = (
    "\n#pragma unroll {}\nfor (uint32 i_w = 0; i_w < 32; ++i_w) {{ const uint32 k_w = i_w * 128 + threadIdxGlobal; "
    "if (k_w < l_972) {{ buffer_2[l_971 + k_w] = uint32(shared_memory_4[2 * k_w]) | "
    "(uint32(shared_memory_4[2 * k_w + 1]) << 16); }} }}\n"
)
out["v9"] = v0[:a] + loop.format(1) + v0[b:]
out["v10"] = v0[:a] + loop.format(4) + v0[b:]
for name, src in out.items():
    open(name + ".cu", "w").write(src)
