//! Host side of the GPU codecs: buffers, launch, the `Codec` trait.

use cubecl::prelude::*;
use cubecl::server::Handle;

use crate::compact::{
    compact_compress, scan_offsets, zero_words, PASS_COUNT, PASS_SINGLE, PASS_WRITE,
};
use crate::decode::sparse_decompress;
use crate::format::*;
use crate::{bitmap, cpu, lz4, single_pass, zvc, CodecError};

/// Launch configuration of a codec kernel; the tuner owns it.
///
/// `block` is the number of units per cube; `grid` the number of cubes
/// (each cube loops over chunks when `grid` is below the number of chunks).
/// `single_pass` (ZVC, CSR, RLE compress on CUDA only) reads the input once
/// and finds each chunk's output offset by decoupled look-back between
/// cubes; otherwise compress runs a count pass, a scan of the chunk counts
/// and a write pass (the input is read twice). The look-back needs cubes
/// that started to make progress and coherent atomics: guaranteed on CUDA;
/// on lavapipe it produced wrong offsets in testing, so it is refused there.
/// Values per unit follow from `block`: ZVC gives each unit 32 words (one
/// group of 32 f32 elements, two groups of 16-bit ones), a cube a tile of
/// `32 * min(block, 256)` words (whole chunks;
/// fewer when the device has little shared memory, e.g. 128 units on
/// lavapipe; units past 256 only load and store); CSR and RLE process one
/// chunk of [`CHUNK`] elements per cube at a time, so each unit handles
/// `CHUNK / block` elements per chunk; LZ4 gives each unit a whole chunk;
/// Bitmap gives each unit one bitmap word (32 elements) per tile, a cube
/// `block` of them (compress stages the tile in shared memory, fewer words
/// where the device has little). Bitmap has no single pass: its compress
/// reads a two-valued input once already.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct LaunchConfig {
    /// Units per cube.
    pub block: u32,
    /// Cubes launched (capped at the number of chunks or chunk groups).
    pub grid: u32,
    /// Single-pass compress with decoupled look-back (see above).
    #[serde(default)]
    pub single_pass: bool,
}

impl LaunchConfig {
    /// Block sizes the kernels of `codec` accept.
    pub fn blocks(codec: CodecKind) -> &'static [u32] {
        match codec {
            CodecKind::Lz4 => &[8, 16, 32],
            _ => &[64, 128, 256, 512, 1024],
        }
    }
    /// Largest grid the tuner tries.
    pub const MAX_GRID: u32 = 4096;
    /// Elements each unit handles per chunk (ZVC: per tile, one group of
    /// f32; 16-bit units take two groups, the same 32 words; Bitmap: per
    /// tile, one bitmap word).
    pub fn values_per_thread(&self, codec: CodecKind) -> usize {
        match codec {
            CodecKind::Lz4 => CHUNK,
            CodecKind::Zvc | CodecKind::Bitmap => GROUP,
            _ => CHUNK / self.block as usize,
        }
    }
    /// Whether `codec` has a single-pass compress (see
    /// [`LaunchConfig::single_pass`]; it runs on CUDA only,
    /// [`supports_single_pass`]).
    pub fn has_single_pass(codec: CodecKind) -> bool {
        matches!(codec, CodecKind::Zvc | CodecKind::Csr | CodecKind::Rle)
    }
    /// A reasonable configuration without tuning.
    pub fn default_for(codec: CodecKind) -> Self {
        match codec {
            CodecKind::Lz4 => LaunchConfig {
                block: 32,
                grid: 4096,
                single_pass: false,
            },
            _ => LaunchConfig {
                block: 256,
                grid: 4096,
                single_pass: false,
            },
        }
    }
    /// [`Self::default_for`], with the largest block below it that
    /// `client`'s device runs where the default's does not fit (a device
    /// with little shared memory, such as lavapipe).
    pub fn default_on<R: Runtime>(client: &ComputeClient<R>, codec: CodecKind) -> Self {
        let default = Self::default_for(codec);
        Self::blocks(codec)
            .iter()
            .rev()
            .filter(|&&block| block <= default.block)
            .map(|&block| LaunchConfig { block, ..default })
            .find(|cfg| cfg.validate(client, codec).is_ok())
            .unwrap_or(default)
    }
    fn validate<R: Runtime>(
        &self,
        client: &ComputeClient<R>,
        codec: CodecKind,
    ) -> Result<(), CodecError> {
        if !Self::blocks(codec).contains(&self.block) {
            return Err(CodecError::BadConfig(
                *self,
                "block size not supported by this codec",
            ));
        }
        if self.block > client.properties().hardware.max_units_per_cube {
            return Err(CodecError::BadConfig(
                *self,
                "block larger than the device allows",
            ));
        }
        if shared_bytes(codec, self.block) > client.properties().hardware.max_shared_memory_size {
            return Err(CodecError::BadConfig(
                *self,
                "needs more shared memory than the device has",
            ));
        }
        if self.single_pass && (!Self::has_single_pass(codec) || !supports_single_pass(client)) {
            return Err(CodecError::BadConfig(
                *self,
                "single-pass look-back needs CUDA and ZVC, CSR or RLE",
            ));
        }
        if self.grid == 0 || self.grid > client.properties().hardware.max_cube_count.0 {
            return Err(CodecError::BadConfig(*self, "grid out of range"));
        }
        Ok(())
    }
}

/// Whether the single-pass (decoupled look-back) compress may run on this
/// runtime: CUDA only.
pub fn supports_single_pass<R: Runtime>(client: &ComputeClient<R>) -> bool {
    R::name(client).to_ascii_lowercase().contains("cuda")
}

/// Whether the kernels' per-cube checksum reduction may use plane
/// operations at `block` units: the device has them, one plane width, and
/// the cube is whole planes (CUDA's plane operations take the full warp).
pub(crate) fn plane_reduce<R: Runtime>(client: &ComputeClient<R>, block: u32) -> bool {
    let p = client.properties();
    let (min, max) = (p.hardware.plane_size_min, p.hardware.plane_size_max);
    p.features.plane.contains(cubecl::features::Plane::Ops)
        && min == max
        && min > 0
        && block.is_multiple_of(min)
}

/// Shared memory a kernel of `codec` needs at `block` units (upper bound
/// over directions and dtypes).
pub fn shared_bytes(codec: CodecKind, block: u32) -> usize {
    match codec {
        CodecKind::Lz4 => block as usize * crate::lz4::HASH_SLOTS * 4,
        // ZVC: a tile of 32 words per computing unit staged (16-bit: plus
        // the compacted elements), the scan buffer (tiles of one chunk;
        // devices with more shared memory get tiles of up to 4 chunks for
        // f32 and 8 for 16-bit dtypes, see `zvc_compute_units`)
        CodecKind::Zvc => [false, true]
            .map(|half| zvc_shared_words(half, block, block.min(zvc::min_cb(half))) * 4)
            .into_iter()
            .max()
            .unwrap_or(0),
        // compress: a flags word per staged vector, at least one vector a
        // unit (larger tiles where the device has the room, see `bitmap.rs`)
        CodecKind::Bitmap => bitmap::shared_bytes(block),
        // compress: padded input staging + compacted staging + scan
        _ => (CHUNK + CHUNK / 32 + CHUNK + 3 * GROUPS_PER_CHUNK + 2) * 4,
    }
}

/// A compressed buffer on the device.
#[derive(Debug, Clone)]
pub struct Compressed {
    /// The buffer, `capacity_words` long; the first `read_size` words are the data.
    pub handle: Handle,
    /// One word on the device: the compressed size in words (header included).
    pub size: Handle,
    /// Words allocated for `handle`.
    pub capacity_words: usize,
    /// Codec used.
    pub codec: CodecKind,
    /// Element type.
    pub dtype: DType,
    /// Elements compressed.
    pub len: usize,
}

fn read_words<R: Runtime>(client: &ComputeClient<R>, h: Handle) -> Result<Vec<u32>, CodecError> {
    let bytes = client
        .read_one(h)
        .map_err(|e| CodecError::Runtime(format!("{e:?}")))?;
    bytes_to_words(&bytes)
}

impl Compressed {
    /// Compressed size in words, read from the device (a 4-byte read that
    /// waits for the compress kernel).
    pub fn read_size<R: Runtime>(&self, client: &ComputeClient<R>) -> Result<usize, CodecError> {
        Ok(read_words(client, self.size.clone())?[0] as usize)
    }
    /// The header, read from the device (a 32-byte read that waits for the
    /// compress kernels) and decoded.
    pub fn read_header<R: Runtime>(&self, client: &ComputeClient<R>) -> Result<Header, CodecError> {
        let h = self
            .handle
            .clone()
            .offset_end(((self.capacity_words - HEADER_WORDS) * 4) as u64);
        Header::decode(&read_words(client, h)?, Some(self.capacity_words))
    }
    /// The compressed words, copied to the host (only the used part).
    pub fn to_host<R: Runtime>(&self, client: &ComputeClient<R>) -> Result<Vec<u32>, CodecError> {
        let words = self.read_size(client)?;
        if words > self.capacity_words {
            return Err(CodecError::Corrupt("device size exceeds capacity"));
        }
        let h = self
            .handle
            .clone()
            .offset_end(((self.capacity_words - words) * 4) as u64);
        let mut v = read_words(client, h)?;
        v.truncate(words);
        Ok(v)
    }
}

/// A decompressed buffer on the device, with the decoder's status words.
#[derive(Debug, Clone)]
pub struct Decompressed {
    /// The element words (`dtype.words(len)` of them, at least one).
    pub handle: Handle,
    /// Pairs of words on the device, one pair per decoder cube for 16-bit
    /// ZVC and Bitmap and one in all otherwise: the decoder's status bits (zero
    /// when it found no structural corruption) and the checksum of the
    /// words it wrote (see [`checksum`]). [`Decompressed::check`] ORs the
    /// bits and adds the checksums.
    pub status: Handle,
    /// Words of data in `handle`.
    pub words: usize,
    /// The checksum the header holds: what the second status word must be.
    pub expected_checksum: u32,
}

impl Decompressed {
    /// Read the status words (a read of 8 bytes per pair that waits for
    /// the decoder): [`CodecError::DeviceRejected`] if the decoder found
    /// the buffer structurally corrupt, [`CodecError::ChecksumMismatch`] if
    /// the decoded words do not give the header's checksum. Until this
    /// returns `Ok`, the contents of `handle` must not be trusted.
    pub fn check<R: Runtime>(&self, client: &ComputeClient<R>) -> Result<(), CodecError> {
        self.check_status(&read_words(client, self.status.clone())?)
    }
    /// [`Self::check`] on status words already read (several decoders'
    /// status can be read from the device at once).
    pub fn check_status(&self, s: &[u32]) -> Result<(), CodecError> {
        self.status().check_status(s)
    }
    /// What a later check needs, without the decompressed buffer: holding
    /// it until the status is read does not keep that buffer alive.
    pub fn status(&self) -> DecodeStatus {
        DecodeStatus {
            status: self.status.clone(),
            expected_checksum: self.expected_checksum,
        }
    }
    /// Check, then copy the words to the host.
    pub fn to_host<R: Runtime>(&self, client: &ComputeClient<R>) -> Result<Vec<u32>, CodecError> {
        self.check(client)?;
        let mut v = read_words(client, self.handle.clone())?;
        v.truncate(self.words);
        Ok(v)
    }
}

/// A decoder's status words on the device and the checksum they must give
/// ([`Decompressed::status`]).
#[derive(Clone, Debug)]
pub struct DecodeStatus {
    /// As [`Decompressed::status`].
    pub status: Handle,
    /// As [`Decompressed::expected_checksum`].
    pub expected_checksum: u32,
}

impl DecodeStatus {
    /// [`Decompressed::check_status`].
    pub fn check_status(&self, s: &[u32]) -> Result<(), CodecError> {
        let (bits, found) = s
            .chunks_exact(2)
            .fold((0u32, 0u32), |(b, c), p| (b | p[0], c.wrapping_add(p[1])));
        if bits != 0 {
            return Err(CodecError::DeviceRejected(bits));
        }
        if found != self.expected_checksum {
            return Err(CodecError::ChecksumMismatch {
                expected: self.expected_checksum,
                found,
            });
        }
        Ok(())
    }
}

pub(crate) fn arr<R: Runtime>(h: &Handle, len: usize) -> ArrayArg<R> {
    unsafe { ArrayArg::from_raw_parts(h.clone(), len.max(1)) }
}

pub(crate) fn zeroed<R: Runtime>(client: &ComputeClient<R>, words: usize) -> Handle {
    let words = words.max(1);
    let h = client.empty(words * 4);
    zero(client, &h, words);
    h
}

/// Queue the zeroing of the first `words` words of `h`.
pub(crate) fn zero<R: Runtime>(client: &ComputeClient<R>, h: &Handle, words: usize) {
    let block = 256u32;
    let cubes = (words as u32).div_ceil(block);
    zero_words::launch(
        client,
        CubeCount::Static(cubes, 1, 1),
        CubeDim::new_1d(block),
        arr(h, words),
        words as u32,
    );
}

/// Compress `len` elements of `dtype` held in `input` (at least
/// `dtype.words(len)` words) with `codec` and launch configuration `cfg`.
/// Returns at once; the size is on the device (see [`Compressed::read_size`]).
pub fn compress<R: Runtime>(
    client: &ComputeClient<R>,
    codec: CodecKind,
    input: &Handle,
    dtype: DType,
    len: usize,
    cfg: LaunchConfig,
) -> Result<Compressed, CodecError> {
    cfg.validate(client, codec)?;
    let in_words = dtype.words(len);
    if !crate::format::accepts(dtype, len) {
        return Err(CodecError::TooLarge {
            elements: len,
            max: crate::format::MAX_ELEMENTS - 1,
        });
    }
    if (input.size_in_used() as usize) < in_words * 4 {
        return Err(CodecError::Truncated {
            need: in_words * 4,
            have: input.size_in_used() as usize,
        });
    }
    if len == 0 {
        let words = cpu::compress(codec, dtype, &[], 0)?;
        return Ok(Compressed {
            handle: client.create_from_slice(&words_to_bytes(&words)),
            size: client.create_from_slice(&(words.len() as u32).to_le_bytes()),
            capacity_words: words.len(),
            codec,
            dtype,
            len,
        });
    }
    let layout = Layout::new(codec, len);
    let cap = max_compressed_words(codec, dtype, len);
    let out = client.empty(cap * 4);
    let size = client.empty(4);
    let nchunks = chunks(len);
    let w1 = Header {
        codec,
        dtype,
        len,
        total_words: 0,
        checksum: 0,
    }
    .encode()[1];
    let half = dtype.size() == 2;
    match codec {
        CodecKind::Lz4 => lz4::compress_gpu(
            client, input, in_words, &out, &size, dtype, len, cfg, &layout, w1,
        )?,
        CodecKind::Zvc => zvc_compress_gpu(
            client, input, in_words, &out, cap, &size, dtype, len, cfg, &layout, w1,
        )?,
        CodecKind::Bitmap => {
            bitmap::compress_gpu(client, input, in_words, &out, &size, dtype, len, cfg, w1)
        }
        _ => {
            let plane = plane_reduce(client, cfg.block);
            let grid = cfg.grid.min(nchunks as u32);
            let iters = (nchunks as u32).div_ceil(grid);
            let args = CompactArgs {
                input,
                out: &out,
                size: &size,
                in_words,
                cap,
                len,
                nchunks,
                grid,
                iters,
                layout: &layout,
                w1,
                rle: codec == CodecKind::Rle,
                half,
                block: cfg.block,
                plane,
            };
            if cfg.single_pass {
                // ticket and look-back words, kept zero between launches
                let units = grid as usize * cfg.block as usize;
                single_pass::with_state(client, nchunks + 1, units, |b| {
                    launch_compact::<R, u64>(client, &args, PASS_SINGLE, b)
                });
            } else {
                // chunk counts, then one partial checksum per cube
                let counts = client.empty((nchunks + grid as usize) * 4);
                let b = single_pass::Binding::unused(&counts);
                launch_compact::<R, u32>(client, &args, PASS_COUNT, &b);
                let div = 4 / dtype.size() as u32;
                scan_offsets::launch(
                    client,
                    CubeCount::Static(1, 1, 1),
                    CubeDim::new_1d(256),
                    arr(&counts, nchunks + grid as usize),
                    arr(&out, cap),
                    arr(&size, 1),
                    nchunks as u32,
                    grid,
                    layout.offsets as u32,
                    layout.payload as u32,
                    len as u32,
                    w1,
                    div,
                    codec != CodecKind::Zvc,
                    256u32,
                );
                launch_compact::<R, u32>(client, &args, PASS_WRITE, &b);
            }
        }
    }
    Ok(Compressed {
        handle: out,
        size,
        capacity_words: cap,
        codec,
        dtype,
        len,
    })
}

/// What one launch of the CSR / RLE compress kernel takes besides its
/// look-back state and counts.
struct CompactArgs<'a> {
    input: &'a Handle,
    out: &'a Handle,
    size: &'a Handle,
    in_words: usize,
    cap: usize,
    len: usize,
    nchunks: usize,
    grid: u32,
    iters: u32,
    layout: &'a Layout,
    w1: u32,
    rle: bool,
    half: bool,
    block: u32,
    plane: bool,
}

/// One launch of the CSR / RLE compress kernel: `PASS_SINGLE` with `D` =
/// `u64` and the stream's state (see `finish_single_pass`), the other
/// passes with `D` = `u32` and their counts.
fn launch_compact<R: Runtime, D: cubecl::prelude::Int>(
    client: &ComputeClient<R>,
    a: &CompactArgs,
    pass: u32,
    b: &single_pass::Binding,
) {
    let (state, done, counts) = (b.state, b.done, b.clear);
    // `PASS_SINGLE` binds as `counts` the state to clear
    let counts_len = if pass == PASS_SINGLE {
        b.clear_words as usize
    } else {
        a.nchunks + a.grid as usize
    };
    compact_compress::launch::<D, R>(
        client,
        CubeCount::Static(a.grid, 1, 1),
        CubeDim::new_1d(a.block),
        arr(a.input, a.in_words),
        arr(a.out, a.cap),
        arr(state, a.nchunks + 1),
        arr(done, 1),
        arr(a.size, 1),
        arr(counts, counts_len),
        a.len as u32,
        a.in_words as u32,
        a.nchunks as u32,
        a.iters,
        a.layout.offsets as u32,
        a.layout.payload as u32,
        a.w1,
        b.clear_words,
        a.rle,
        a.half,
        a.block,
        pass,
        a.plane,
    )
}

static WORD_LOADS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Tests only: make the ZVC and Bitmap kernels use 4-byte instead of
/// 16-byte loads and stores (what they do anyway for an input that is not
/// 16-byte aligned, which wgpu cannot bind). Both write the same bytes.
#[doc(hidden)]
pub fn zvc_force_word_access(on: bool) {
    WORD_LOADS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether kernels may load and store 16-byte vectors: the device has
/// 4-wide vectors and the tests did not ask for word access.
pub(crate) fn vec4_access<R: Runtime>(client: &ComputeClient<R>) -> bool {
    !WORD_LOADS.load(std::sync::atomic::Ordering::Relaxed)
        && client.properties().hardware.max_vector_size >= 4
}

/// Units of a ZVC cube that compute (32 words each; the tile is `32 * cb`
/// words, whole chunks): `min(block, 256)`, halved while the kernels would
/// need more shared memory than the device has (down to one chunk per tile).
pub(crate) fn zvc_compute_units<R: Runtime>(
    client: &ComputeClient<R>,
    block: u32,
    half: bool,
) -> u32 {
    let max = client.properties().hardware.max_shared_memory_size;
    let mut cb = block.min(zvc::MAX_CB);
    while cb > zvc::min_cb(half) && zvc_shared_words(half, block, cb) * 4 > max {
        cb /= 2;
    }
    cb
}

fn zvc_shared_words(half: bool, block: u32, cb: u32) -> usize {
    zvc::compress_shared_words(half, block, cb).max(zvc::decompress_shared_words(half, block, cb))
}

/// How a ZVC launch (compress or decompress) covers its elements.
struct ZvcTiling {
    /// Units per cube that compute (see [`zvc_compute_units`]).
    cb: u32,
    /// Tiles of `32 * cb` words.
    ntiles: usize,
    /// Cubes, each taking `iters` tiles.
    grid: u32,
    iters: u32,
    /// Plane operations for the cube sums (see [`plane_reduce`]).
    plane: bool,
    /// 16-byte loads and stores allowed (the device has 4-wide vectors and
    /// the tests did not ask for word access).
    vec4: bool,
}

fn zvc_tiling<R: Runtime>(
    client: &ComputeClient<R>,
    cfg: LaunchConfig,
    half: bool,
    len: usize,
) -> ZvcTiling {
    let cb = zvc_compute_units(client, cfg.block, half);
    let ntiles = len.div_ceil(32 * (cb * zvc::groups_per_unit(half)) as usize);
    let grid = cfg.grid.min(ntiles as u32);
    ZvcTiling {
        cb,
        ntiles,
        grid,
        iters: (ntiles as u32).div_ceil(grid),
        plane: plane_reduce(client, cfg.block),
        vec4: vec4_access(client),
    }
}

/// What one launch of the ZVC compress kernel takes besides its buffers.
struct ZvcCompressArgs<'a> {
    input: &'a Handle,
    out: &'a Handle,
    size: &'a Handle,
    t: ZvcTiling,
    block: u32,
    nv: usize,
    full_lines: usize,
    in_words: usize,
    cap: usize,
    len: usize,
    layout: &'a Layout,
    w1: u32,
    half: bool,
}

/// One launch of the ZVC compress kernel, staging 16-bit kept elements as
/// `S`: `PASS_SINGLE` with `D` = `u64` and the stream's state (see
/// `finish_single_pass`), the other passes with `D` = `u32` and their
/// tile counts.
fn launch_zvc_compress<R: Runtime, S: cubecl::prelude::Int, D: cubecl::prelude::Int>(
    client: &ComputeClient<R>,
    a: &ZvcCompressArgs,
    pass: u32,
    b: &single_pass::Binding,
) {
    let (input, out, size) = (a.input, a.out, a.size);
    let (state, done, tiles) = (b.state, b.done, b.clear);
    // `PASS_SINGLE` binds as `tiles` the state to clear
    let tiles_len = if pass == PASS_SINGLE {
        b.clear_words as usize
    } else {
        a.t.ntiles + 1 + a.t.grid as usize
    };
    unsafe {
        zvc::zvc_compress::launch_unchecked::<S, D, R>(
            client,
            CubeCount::Static(a.t.grid, 1, 1),
            CubeDim::new_1d(a.block),
            a.nv,
            arr(input, a.full_lines),
            arr(input, a.in_words),
            arr(out, a.cap),
            arr(state, a.t.ntiles + 1),
            arr(done, 1),
            arr(size, 1),
            arr(tiles, tiles_len),
            a.len as u32,
            a.in_words as u32,
            a.full_lines as u32,
            chunks(a.len) as u32,
            a.t.ntiles as u32,
            a.t.iters,
            a.layout.masks as u32,
            a.layout.offsets as u32,
            a.layout.payload as u32,
            a.w1,
            b.clear_words,
            a.half,
            a.nv as u32,
            a.block,
            a.t.cb,
            pass,
            a.t.plane,
        )
    }
}

/// ZVC compress: see `zvc.rs`. Single pass (look-back) or count / scan /
/// write, one tile of `32 * min(block, 256)` words per cube at a time.
#[allow(clippy::too_many_arguments)]
fn zvc_compress_gpu<R: Runtime>(
    client: &ComputeClient<R>,
    input: &Handle,
    in_words: usize,
    out: &Handle,
    cap: usize,
    size: &Handle,
    dtype: DType,
    len: usize,
    cfg: LaunchConfig,
    layout: &Layout,
    w1: u32,
) -> Result<(), CodecError> {
    let half = dtype.size() == 2;
    let t = zvc_tiling(client, cfg, half, len);
    let (ntiles, grid) = (t.ntiles, t.grid);
    // 16-byte loads when the input starts 16-byte aligned
    let aligned = input.offset_start.unwrap_or(0).is_multiple_of(16);
    let nv: usize = if aligned && in_words >= 4 && t.vec4 {
        4
    } else {
        1
    };
    let full_lines = in_words / nv;
    let args = ZvcCompressArgs {
        input,
        out,
        size,
        t,
        block: cfg.block,
        nv,
        full_lines,
        in_words,
        cap,
        len,
        layout,
        w1,
        half,
    };
    // 16-bit kept elements staged as u16 where the device has the type
    let u16_staging = half
        && client
            .properties()
            .supports_type(u16::as_type_native_unchecked());
    let launch = |pass: u32, b: &single_pass::Binding| match (u16_staging, pass == PASS_SINGLE) {
        (true, true) => launch_zvc_compress::<R, u16, u64>(client, &args, pass, b),
        (true, false) => launch_zvc_compress::<R, u16, u32>(client, &args, pass, b),
        (false, true) => launch_zvc_compress::<R, u32, u64>(client, &args, pass, b),
        (false, false) => launch_zvc_compress::<R, u32, u32>(client, &args, pass, b),
    };
    if cfg.single_pass {
        // ticket and look-back words, kept zero between launches
        let units = grid as usize * cfg.block as usize;
        single_pass::with_state(client, ntiles + 1, units, |b| launch(PASS_SINGLE, b));
    } else {
        // tile counts, the checksum, one partial checksum per cube
        let tiles = client.empty((ntiles + 1 + grid as usize) * 4);
        let scan_block = if client.properties().hardware.max_units_per_cube >= 1024 {
            1024
        } else {
            256
        };
        let b = single_pass::Binding::unused(&tiles);
        launch(PASS_COUNT, &b);
        unsafe {
            zvc::zvc_scan_tiles::launch_unchecked::<R>(
                client,
                CubeCount::Static(1, 1, 1),
                CubeDim::new_1d(scan_block),
                arr(&tiles, ntiles + 1 + grid as usize),
                ntiles as u32,
                grid,
                scan_block,
                4,
            )
        };
        launch(PASS_WRITE, &b);
    }
    Ok(())
}

/// ZVC decompress: see `zvc.rs`. The output is allocated in whole vectors
/// of 4 words and handed back trimmed to the data.
fn zvc_decompress_gpu<R: Runtime>(
    client: &ComputeClient<R>,
    comp: &Handle,
    header: &Header,
    cfg: LaunchConfig,
    layout: &Layout,
) -> Result<Decompressed, CodecError> {
    let len = header.len;
    let half = header.dtype.size() == 2;
    let t = zvc_tiling(client, cfg, half, len);
    // 16-bit: a pair of status words per cube, each written by its cube (no
    // zeroing launch); f32: one zeroed pair (see `zvc_decompress`)
    let per_cube = half;
    let status_words = if per_cube { 2 * t.grid as usize } else { 2 };
    let status = if per_cube {
        client.empty(status_words * 4)
    } else {
        zeroed(client, status_words)
    };
    let out_words = header.dtype.words(len);
    let nv: usize = if t.vec4 { 4 } else { 1 };
    let out_lines = out_words.div_ceil(nv);
    let out = client.empty(out_lines * nv * 4);
    unsafe {
        zvc::zvc_decompress::launch_unchecked::<R>(
            client,
            CubeCount::Static(t.grid, 1, 1),
            CubeDim::new_1d(cfg.block),
            nv,
            arr(comp, header.total_words),
            arr(&out, out_lines),
            arr(&status, status_words),
            len as u32,
            out_lines as u32,
            chunks(len) as u32,
            t.ntiles as u32,
            t.iters,
            layout.masks as u32,
            layout.offsets as u32,
            layout.payload as u32,
            header.total_words as u32,
            half,
            nv as u32,
            cfg.block,
            t.cb,
            t.plane,
            per_cube,
        )
    };
    let handle = out.offset_end(((out_lines * nv - out_words) * 4) as u64);
    Ok(Decompressed {
        handle,
        status,
        words: out_words,
        expected_checksum: header.checksum,
    })
}

/// Decompress the buffer `comp` (on the device, at least
/// `header.total_words` words) whose header the host decoded and validated
/// with [`Header::decode`]. Returns at once; call
/// [`Decompressed::check`] before trusting the data.
pub fn decompress<R: Runtime>(
    client: &ComputeClient<R>,
    comp: &Handle,
    header: &Header,
    cfg: LaunchConfig,
) -> Result<Decompressed, CodecError> {
    let codec = header.codec;
    cfg.validate(client, codec)?;
    let have = comp.size_in_used() as usize;
    if have < header.total_words * 4 {
        return Err(CodecError::Truncated {
            need: header.total_words * 4,
            have,
        });
    }
    let len = header.len;
    let dtype = header.dtype;
    let out_words = dtype.words(len);
    if codec == CodecKind::Zvc && len > 0 {
        return zvc_decompress_gpu(client, comp, header, cfg, &Layout::new(codec, len));
    }
    if codec == CodecKind::Bitmap && len > 0 {
        return Ok(bitmap::decompress_gpu(client, comp, header, cfg));
    }
    // status bits, checksum of the decoded words
    let status = zeroed(client, 2);
    let out = client.empty(out_words.max(1) * 4);
    if len == 0 {
        return Ok(Decompressed {
            handle: out,
            status,
            words: 0,
            expected_checksum: header.checksum,
        });
    }
    let layout = Layout::new(codec, len);
    let nchunks = chunks(len);
    let half = dtype.size() == 2;
    let total = header.total_words;
    match codec {
        CodecKind::Lz4 => lz4::decompress_gpu(
            client, comp, total, &out, out_words, &status, dtype, len, cfg, &layout,
        )?,
        _ => {
            let grid = cfg.grid.min(nchunks as u32);
            let iters = (nchunks as u32).div_ceil(grid);
            {
                sparse_decompress::launch(
                    client,
                    CubeCount::Static(grid, 1, 1),
                    CubeDim::new_1d(cfg.block),
                    arr(comp, total),
                    arr(&out, out_words),
                    arr(&status, 2),
                    len as u32,
                    out_words as u32,
                    nchunks as u32,
                    iters,
                    layout.offsets as u32,
                    layout.payload as u32,
                    total as u32,
                    codec == CodecKind::Rle,
                    half,
                    cfg.block,
                    plane_reduce(client, cfg.block),
                );
            }
        }
    }
    Ok(Decompressed {
        handle: out,
        status,
        words: out_words,
        expected_checksum: header.checksum,
    })
}

/// One codec: GPU compress and decompress plus the CPU reference.
pub trait Codec {
    /// Which codec.
    const KIND: CodecKind;
    /// GPU compress; see [`compress`].
    fn compress<R: Runtime>(
        client: &ComputeClient<R>,
        input: &Handle,
        dtype: DType,
        len: usize,
        cfg: LaunchConfig,
    ) -> Result<Compressed, CodecError> {
        compress(client, Self::KIND, input, dtype, len, cfg)
    }
    /// GPU decompress; see [`decompress`].
    fn decompress<R: Runtime>(
        client: &ComputeClient<R>,
        comp: &Handle,
        header: &Header,
        cfg: LaunchConfig,
    ) -> Result<Decompressed, CodecError> {
        if header.codec != Self::KIND {
            return Err(CodecError::Corrupt("buffer was written by another codec"));
        }
        decompress(client, comp, header, cfg)
    }
    /// CPU reference compress (same format).
    fn compress_cpu(dtype: DType, words: &[u32], len: usize) -> Result<Vec<u32>, CodecError> {
        cpu::compress(Self::KIND, dtype, words, len)
    }
    /// CPU reference decompress.
    fn decompress_cpu(words: &[u32]) -> Result<Vec<u32>, CodecError> {
        let (out, h) = cpu::decompress(words)?;
        if h.codec != Self::KIND {
            return Err(CodecError::Corrupt("buffer was written by another codec"));
        }
        Ok(out)
    }
}

/// Zero-value compression.
pub struct Zvc;
/// Run-length encoding.
pub struct Rle;
/// Compressed sparse rows.
pub struct Csr;
/// LZ4 blocks.
pub struct Lz4;
/// A bit per element of a tensor of zeros and one value.
pub struct Bitmap;
impl Codec for Zvc {
    const KIND: CodecKind = CodecKind::Zvc;
}
impl Codec for Rle {
    const KIND: CodecKind = CodecKind::Rle;
}
impl Codec for Csr {
    const KIND: CodecKind = CodecKind::Csr;
}
impl Codec for Lz4 {
    const KIND: CodecKind = CodecKind::Lz4;
}
impl Codec for Bitmap {
    const KIND: CodecKind = CodecKind::Bitmap;
}
