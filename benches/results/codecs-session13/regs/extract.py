# Split a CUBECL_DEBUG_LOG file into one .cu per compiled kernel whose info matches the filters.
import re, sys
log, outdir = sys.argv[1], sys.argv[2]
text = open(log).read()
blocks = text.split("[START_KERNEL_COMPILATION]")[1:]
n = 0
for b in blocks:
    name = b.split("\n")[1].strip()
    m = re.search(r"```cpp\n(.*?)```", b, re.S)
    if not m or "zvc_compress" not in b.split("source:")[0]:
        continue
    info = b.split("source:")[0]
    half = "half: true" in info
    pc = "plane_chunks: true" in info
    blk = re.search(r"block: (\d+)", info).group(1)
    pas = re.search(r"pass: (\d+)", info).group(1)
    fn = f"{outdir}/zvc_c_half{int(half)}_pc{int(pc)}_b{blk}_p{pas}_{n}.cu"
    open(fn, "w").write(m.group(1))
    n += 1
    print(fn)
