#include <cuda_runtime.h>
typedef unsigned int uint;
typedef unsigned char uint8;
typedef unsigned short uint16;
typedef unsigned int uint32;
typedef unsigned long long int uint64;
typedef signed char int8;
typedef signed short int16;
typedef signed int int32;
typedef signed long long int int64;

struct __align__(16) uint32_4 {
    uint32 i_0;
    uint32 i_1;
    uint32 i_2;
    uint32 i_3;
};
struct info_st {
    uint32 scalars_uint32[12];uint32 static_meta[14];
};


extern "C" __global__ void __launch_bounds__(128)zvc_compress_n_4_s_u16_d_u64 (
    const uint32_4* __restrict__ buffer_0, const uint32* __restrict__ buffer_1, uint32* buffer_2, uint32* buffer_3, uint64* buffer_4, uint32* buffer_5, uint32* buffer_6, const __grid_constant__ info_st info
) {
uint3 absoluteIdx = make_uint3(
    blockIdx.x * blockDim.x + threadIdx.x,
    blockIdx.y * blockDim.y + threadIdx.y,
    blockIdx.z * blockDim.z + threadIdx.z
);
uint32 threadIdxGlobal = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * (blockDim.x * blockDim.y);
uint32 idxGlobal = (
                absoluteIdx.z * gridDim.x * blockDim.x * gridDim.y * blockDim.y)
                + (absoluteIdx.y * gridDim.x * blockDim.x)
                + absoluteIdx.x;
uint32 gridDimGlobal = gridDim.x * gridDim.y * gridDim.z;
uint32 blockIdxGlobal = (blockIdx.z * gridDim.y * gridDim.x) + (blockIdx.y * gridDim.x) + blockIdx.x;
uint32 warpSizeChecked = min(warpSize, blockDim.x * blockDim.y * blockDim.z);
extern __shared__ __align__(4) uint8 dynamic_shared_mem[];
// Shared array size: 256, 1024 bytes
uint32 *shared_memory_5 = reinterpret_cast<uint32*>(&dynamic_shared_mem[0]);
// Shared array size: 4224, 16896 bytes
uint32 *shared_memory_3 = reinterpret_cast<uint32*>(&dynamic_shared_mem[1024]);
// Shared array size: 4, 16 bytes
uint32 *shared_memory_6 = reinterpret_cast<uint32*>(&dynamic_shared_mem[17920]);
// Shared array size: 8192, 16384 bytes
uint16 *shared_memory_4 = reinterpret_cast<uint16*>(&dynamic_shared_mem[17936]);
uint32_4 l_arr_16[4];

uint32_4 l_arr_190[4];

uint32 l_mut_0;
uint32 l_mut_366;
uint32 l_mut_697;
uint32 l_mut_698;
uint32 l_mut_699;
uint32 l_mut_707;
uint32 l_mut_1057;
uint32 l_mut_1059;
uint32 l_mut_1658;
uint32 l_mut_1660;
bool l_mut_18;
l_mut_0 = uint32(0);
const uint32 l_1 = info.scalars_uint32[0] + uint32(31);
const uint32 l_2 = l_1 / uint32(32);

for (uint32 l_mut_7 = uint32(0); l_mut_7 < info.scalars_uint32[5]; ++l_mut_7) {
const bool l_8 = threadIdxGlobal == uint32(0);
if (l_8) {
uint32* l_9 = &buffer_3[uint32(0)];
const uint32 l_10 = atomicAdd(l_9, uint32(1));
shared_memory_6[uint32(0)] = l_10;
}
__syncthreads();

const uint32 l_11 = shared_memory_6[uint32(0)];
const bool l_12 = l_11 < info.scalars_uint32[4];
const uint32 l_13 = l_11 * uint32(1024);
if (l_12) {
const uint32 l_14 = l_13 + uint32(1024);
const bool l_15 = l_14 <= info.scalars_uint32[2];
if (l_15) {
const uint32 l_17 = uint32(0) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_19 = bool(true) && l_mut_18;
if (l_19) {
const uint32 l_20 = l_13 + l_17;
const uint32_4 l_21 = buffer_0[l_20];
l_arr_16[uint32(0)] = reinterpret_cast< uint32_4 const&>(l_21);
}
const uint32 l_22 = uint32(128) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_23 = bool(true) && l_mut_18;
if (l_23) {
const uint32 l_24 = l_13 + l_22;
const uint32_4 l_25 = buffer_0[l_24];
l_arr_16[uint32(1)] = reinterpret_cast< uint32_4 const&>(l_25);
}
const uint32 l_26 = uint32(256) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_27 = bool(true) && l_mut_18;
if (l_27) {
const uint32 l_28 = l_13 + l_26;
const uint32_4 l_29 = buffer_0[l_28];
l_arr_16[uint32(2)] = reinterpret_cast< uint32_4 const&>(l_29);
}
const uint32 l_30 = uint32(384) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_31 = bool(true) && l_mut_18;
if (l_31) {
const uint32 l_32 = l_13 + l_30;
const uint32_4 l_33 = buffer_0[l_32];
l_arr_16[uint32(3)] = reinterpret_cast< uint32_4 const&>(l_33);
}
const uint32 l_34 = uint32(0) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_35 = bool(true) && l_mut_18;
if (l_35) {
const uint32_4 l_36 = l_arr_16[uint32(0)];
const uint32 l_37 = l_13 + l_34;
const uint32 l_38 = uint32(2) * l_37;
const uint32 l_39 = l_38 * uint32(4);
const uint32 l_40 = l_39 + uint32(1);
const uint32 l_41 = l_34 * uint32(4);
const uint32 l_42 = l_41 + uint32(0);
const uint32 l_43 = l_42 / uint32(32);
const uint32 l_44 = l_42 + l_43;
const uint32 l_45 = l_36.i_0;
shared_memory_3[l_44] = l_45;
const uint32 l_46 = l_36.i_0;
const uint32 l_47 = l_40 + uint32(0);
const uint32 l_48 = l_46 * l_47;
l_mut_0 = l_mut_0 + l_48;
const uint32 l_49 = l_34 * uint32(4);
const uint32 l_50 = l_49 + uint32(1);
const uint32 l_51 = l_50 / uint32(32);
const uint32 l_52 = l_50 + l_51;
const uint32 l_53 = l_36.i_1;
shared_memory_3[l_52] = l_53;
const uint32 l_54 = l_36.i_1;
const uint32 l_55 = l_40 + uint32(2);
const uint32 l_56 = l_54 * l_55;
l_mut_0 = l_mut_0 + l_56;
const uint32 l_57 = l_34 * uint32(4);
const uint32 l_58 = l_57 + uint32(2);
const uint32 l_59 = l_58 / uint32(32);
const uint32 l_60 = l_58 + l_59;
const uint32 l_61 = l_36.i_2;
shared_memory_3[l_60] = l_61;
const uint32 l_62 = l_36.i_2;
const uint32 l_63 = l_40 + uint32(4);
const uint32 l_64 = l_62 * l_63;
l_mut_0 = l_mut_0 + l_64;
const uint32 l_65 = l_34 * uint32(4);
const uint32 l_66 = l_65 + uint32(3);
const uint32 l_67 = l_66 / uint32(32);
const uint32 l_68 = l_66 + l_67;
const uint32 l_69 = l_36.i_3;
shared_memory_3[l_68] = l_69;
const uint32 l_70 = l_36.i_3;
const uint32 l_71 = l_40 + uint32(6);
const uint32 l_72 = l_70 * l_71;
l_mut_0 = l_mut_0 + l_72;
}
const uint32 l_73 = uint32(128) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_74 = bool(true) && l_mut_18;
if (l_74) {
const uint32_4 l_75 = l_arr_16[uint32(1)];
const uint32 l_76 = l_13 + l_73;
const uint32 l_77 = uint32(2) * l_76;
const uint32 l_78 = l_77 * uint32(4);
const uint32 l_79 = l_78 + uint32(1);
const uint32 l_80 = l_73 * uint32(4);
const uint32 l_81 = l_80 + uint32(0);
const uint32 l_82 = l_81 / uint32(32);
const uint32 l_83 = l_81 + l_82;
const uint32 l_84 = l_75.i_0;
shared_memory_3[l_83] = l_84;
const uint32 l_85 = l_75.i_0;
const uint32 l_86 = l_79 + uint32(0);
const uint32 l_87 = l_85 * l_86;
l_mut_0 = l_mut_0 + l_87;
const uint32 l_88 = l_73 * uint32(4);
const uint32 l_89 = l_88 + uint32(1);
const uint32 l_90 = l_89 / uint32(32);
const uint32 l_91 = l_89 + l_90;
const uint32 l_92 = l_75.i_1;
shared_memory_3[l_91] = l_92;
const uint32 l_93 = l_75.i_1;
const uint32 l_94 = l_79 + uint32(2);
const uint32 l_95 = l_93 * l_94;
l_mut_0 = l_mut_0 + l_95;
const uint32 l_96 = l_73 * uint32(4);
const uint32 l_97 = l_96 + uint32(2);
const uint32 l_98 = l_97 / uint32(32);
const uint32 l_99 = l_97 + l_98;
const uint32 l_100 = l_75.i_2;
shared_memory_3[l_99] = l_100;
const uint32 l_101 = l_75.i_2;
const uint32 l_102 = l_79 + uint32(4);
const uint32 l_103 = l_101 * l_102;
l_mut_0 = l_mut_0 + l_103;
const uint32 l_104 = l_73 * uint32(4);
const uint32 l_105 = l_104 + uint32(3);
const uint32 l_106 = l_105 / uint32(32);
const uint32 l_107 = l_105 + l_106;
const uint32 l_108 = l_75.i_3;
shared_memory_3[l_107] = l_108;
const uint32 l_109 = l_75.i_3;
const uint32 l_110 = l_79 + uint32(6);
const uint32 l_111 = l_109 * l_110;
l_mut_0 = l_mut_0 + l_111;
}
const uint32 l_112 = uint32(256) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_113 = bool(true) && l_mut_18;
if (l_113) {
const uint32_4 l_114 = l_arr_16[uint32(2)];
const uint32 l_115 = l_13 + l_112;
const uint32 l_116 = uint32(2) * l_115;
const uint32 l_117 = l_116 * uint32(4);
const uint32 l_118 = l_117 + uint32(1);
const uint32 l_119 = l_112 * uint32(4);
const uint32 l_120 = l_119 + uint32(0);
const uint32 l_121 = l_120 / uint32(32);
const uint32 l_122 = l_120 + l_121;
const uint32 l_123 = l_114.i_0;
shared_memory_3[l_122] = l_123;
const uint32 l_124 = l_114.i_0;
const uint32 l_125 = l_118 + uint32(0);
const uint32 l_126 = l_124 * l_125;
l_mut_0 = l_mut_0 + l_126;
const uint32 l_127 = l_112 * uint32(4);
const uint32 l_128 = l_127 + uint32(1);
const uint32 l_129 = l_128 / uint32(32);
const uint32 l_130 = l_128 + l_129;
const uint32 l_131 = l_114.i_1;
shared_memory_3[l_130] = l_131;
const uint32 l_132 = l_114.i_1;
const uint32 l_133 = l_118 + uint32(2);
const uint32 l_134 = l_132 * l_133;
l_mut_0 = l_mut_0 + l_134;
const uint32 l_135 = l_112 * uint32(4);
const uint32 l_136 = l_135 + uint32(2);
const uint32 l_137 = l_136 / uint32(32);
const uint32 l_138 = l_136 + l_137;
const uint32 l_139 = l_114.i_2;
shared_memory_3[l_138] = l_139;
const uint32 l_140 = l_114.i_2;
const uint32 l_141 = l_118 + uint32(4);
const uint32 l_142 = l_140 * l_141;
l_mut_0 = l_mut_0 + l_142;
const uint32 l_143 = l_112 * uint32(4);
const uint32 l_144 = l_143 + uint32(3);
const uint32 l_145 = l_144 / uint32(32);
const uint32 l_146 = l_144 + l_145;
const uint32 l_147 = l_114.i_3;
shared_memory_3[l_146] = l_147;
const uint32 l_148 = l_114.i_3;
const uint32 l_149 = l_118 + uint32(6);
const uint32 l_150 = l_148 * l_149;
l_mut_0 = l_mut_0 + l_150;
}
const uint32 l_151 = uint32(384) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_152 = bool(true) && l_mut_18;
if (l_152) {
const uint32_4 l_153 = l_arr_16[uint32(3)];
const uint32 l_154 = l_13 + l_151;
const uint32 l_155 = uint32(2) * l_154;
const uint32 l_156 = l_155 * uint32(4);
const uint32 l_157 = l_156 + uint32(1);
const uint32 l_158 = l_151 * uint32(4);
const uint32 l_159 = l_158 + uint32(0);
const uint32 l_160 = l_159 / uint32(32);
const uint32 l_161 = l_159 + l_160;
const uint32 l_162 = l_153.i_0;
shared_memory_3[l_161] = l_162;
const uint32 l_163 = l_153.i_0;
const uint32 l_164 = l_157 + uint32(0);
const uint32 l_165 = l_163 * l_164;
l_mut_0 = l_mut_0 + l_165;
const uint32 l_166 = l_151 * uint32(4);
const uint32 l_167 = l_166 + uint32(1);
const uint32 l_168 = l_167 / uint32(32);
const uint32 l_169 = l_167 + l_168;
const uint32 l_170 = l_153.i_1;
shared_memory_3[l_169] = l_170;
const uint32 l_171 = l_153.i_1;
const uint32 l_172 = l_157 + uint32(2);
const uint32 l_173 = l_171 * l_172;
l_mut_0 = l_mut_0 + l_173;
const uint32 l_174 = l_151 * uint32(4);
const uint32 l_175 = l_174 + uint32(2);
const uint32 l_176 = l_175 / uint32(32);
const uint32 l_177 = l_175 + l_176;
const uint32 l_178 = l_153.i_2;
shared_memory_3[l_177] = l_178;
const uint32 l_179 = l_153.i_2;
const uint32 l_180 = l_157 + uint32(4);
const uint32 l_181 = l_179 * l_180;
l_mut_0 = l_mut_0 + l_181;
const uint32 l_182 = l_151 * uint32(4);
const uint32 l_183 = l_182 + uint32(3);
const uint32 l_184 = l_183 / uint32(32);
const uint32 l_185 = l_183 + l_184;
const uint32 l_186 = l_153.i_3;
shared_memory_3[l_185] = l_186;
const uint32 l_187 = l_153.i_3;
const uint32 l_188 = l_157 + uint32(6);
const uint32 l_189 = l_187 * l_188;
l_mut_0 = l_mut_0 + l_189;
}
const uint32 l_191 = uint32(512) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_192 = bool(true) && l_mut_18;
if (l_192) {
const uint32 l_193 = l_13 + l_191;
const uint32_4 l_194 = buffer_0[l_193];
l_arr_190[uint32(0)] = reinterpret_cast< uint32_4 const&>(l_194);
}
const uint32 l_195 = uint32(640) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_196 = bool(true) && l_mut_18;
if (l_196) {
const uint32 l_197 = l_13 + l_195;
const uint32_4 l_198 = buffer_0[l_197];
l_arr_190[uint32(1)] = reinterpret_cast< uint32_4 const&>(l_198);
}
const uint32 l_199 = uint32(768) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_200 = bool(true) && l_mut_18;
if (l_200) {
const uint32 l_201 = l_13 + l_199;
const uint32_4 l_202 = buffer_0[l_201];
l_arr_190[uint32(2)] = reinterpret_cast< uint32_4 const&>(l_202);
}
const uint32 l_203 = uint32(896) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_204 = bool(true) && l_mut_18;
if (l_204) {
const uint32 l_205 = l_13 + l_203;
const uint32_4 l_206 = buffer_0[l_205];
l_arr_190[uint32(3)] = reinterpret_cast< uint32_4 const&>(l_206);
}
const uint32 l_207 = uint32(512) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_208 = bool(true) && l_mut_18;
if (l_208) {
const uint32_4 l_209 = l_arr_190[uint32(0)];
const uint32 l_210 = l_13 + l_207;
const uint32 l_211 = uint32(2) * l_210;
const uint32 l_212 = l_211 * uint32(4);
const uint32 l_213 = l_212 + uint32(1);
const uint32 l_214 = l_207 * uint32(4);
const uint32 l_215 = l_214 + uint32(0);
const uint32 l_216 = l_215 / uint32(32);
const uint32 l_217 = l_215 + l_216;
const uint32 l_218 = l_209.i_0;
shared_memory_3[l_217] = l_218;
const uint32 l_219 = l_209.i_0;
const uint32 l_220 = l_213 + uint32(0);
const uint32 l_221 = l_219 * l_220;
l_mut_0 = l_mut_0 + l_221;
const uint32 l_222 = l_207 * uint32(4);
const uint32 l_223 = l_222 + uint32(1);
const uint32 l_224 = l_223 / uint32(32);
const uint32 l_225 = l_223 + l_224;
const uint32 l_226 = l_209.i_1;
shared_memory_3[l_225] = l_226;
const uint32 l_227 = l_209.i_1;
const uint32 l_228 = l_213 + uint32(2);
const uint32 l_229 = l_227 * l_228;
l_mut_0 = l_mut_0 + l_229;
const uint32 l_230 = l_207 * uint32(4);
const uint32 l_231 = l_230 + uint32(2);
const uint32 l_232 = l_231 / uint32(32);
const uint32 l_233 = l_231 + l_232;
const uint32 l_234 = l_209.i_2;
shared_memory_3[l_233] = l_234;
const uint32 l_235 = l_209.i_2;
const uint32 l_236 = l_213 + uint32(4);
const uint32 l_237 = l_235 * l_236;
l_mut_0 = l_mut_0 + l_237;
const uint32 l_238 = l_207 * uint32(4);
const uint32 l_239 = l_238 + uint32(3);
const uint32 l_240 = l_239 / uint32(32);
const uint32 l_241 = l_239 + l_240;
const uint32 l_242 = l_209.i_3;
shared_memory_3[l_241] = l_242;
const uint32 l_243 = l_209.i_3;
const uint32 l_244 = l_213 + uint32(6);
const uint32 l_245 = l_243 * l_244;
l_mut_0 = l_mut_0 + l_245;
}
const uint32 l_246 = uint32(640) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_247 = bool(true) && l_mut_18;
if (l_247) {
const uint32_4 l_248 = l_arr_190[uint32(1)];
const uint32 l_249 = l_13 + l_246;
const uint32 l_250 = uint32(2) * l_249;
const uint32 l_251 = l_250 * uint32(4);
const uint32 l_252 = l_251 + uint32(1);
const uint32 l_253 = l_246 * uint32(4);
const uint32 l_254 = l_253 + uint32(0);
const uint32 l_255 = l_254 / uint32(32);
const uint32 l_256 = l_254 + l_255;
const uint32 l_257 = l_248.i_0;
shared_memory_3[l_256] = l_257;
const uint32 l_258 = l_248.i_0;
const uint32 l_259 = l_252 + uint32(0);
const uint32 l_260 = l_258 * l_259;
l_mut_0 = l_mut_0 + l_260;
const uint32 l_261 = l_246 * uint32(4);
const uint32 l_262 = l_261 + uint32(1);
const uint32 l_263 = l_262 / uint32(32);
const uint32 l_264 = l_262 + l_263;
const uint32 l_265 = l_248.i_1;
shared_memory_3[l_264] = l_265;
const uint32 l_266 = l_248.i_1;
const uint32 l_267 = l_252 + uint32(2);
const uint32 l_268 = l_266 * l_267;
l_mut_0 = l_mut_0 + l_268;
const uint32 l_269 = l_246 * uint32(4);
const uint32 l_270 = l_269 + uint32(2);
const uint32 l_271 = l_270 / uint32(32);
const uint32 l_272 = l_270 + l_271;
const uint32 l_273 = l_248.i_2;
shared_memory_3[l_272] = l_273;
const uint32 l_274 = l_248.i_2;
const uint32 l_275 = l_252 + uint32(4);
const uint32 l_276 = l_274 * l_275;
l_mut_0 = l_mut_0 + l_276;
const uint32 l_277 = l_246 * uint32(4);
const uint32 l_278 = l_277 + uint32(3);
const uint32 l_279 = l_278 / uint32(32);
const uint32 l_280 = l_278 + l_279;
const uint32 l_281 = l_248.i_3;
shared_memory_3[l_280] = l_281;
const uint32 l_282 = l_248.i_3;
const uint32 l_283 = l_252 + uint32(6);
const uint32 l_284 = l_282 * l_283;
l_mut_0 = l_mut_0 + l_284;
}
const uint32 l_285 = uint32(768) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_286 = bool(true) && l_mut_18;
if (l_286) {
const uint32_4 l_287 = l_arr_190[uint32(2)];
const uint32 l_288 = l_13 + l_285;
const uint32 l_289 = uint32(2) * l_288;
const uint32 l_290 = l_289 * uint32(4);
const uint32 l_291 = l_290 + uint32(1);
const uint32 l_292 = l_285 * uint32(4);
const uint32 l_293 = l_292 + uint32(0);
const uint32 l_294 = l_293 / uint32(32);
const uint32 l_295 = l_293 + l_294;
const uint32 l_296 = l_287.i_0;
shared_memory_3[l_295] = l_296;
const uint32 l_297 = l_287.i_0;
const uint32 l_298 = l_291 + uint32(0);
const uint32 l_299 = l_297 * l_298;
l_mut_0 = l_mut_0 + l_299;
const uint32 l_300 = l_285 * uint32(4);
const uint32 l_301 = l_300 + uint32(1);
const uint32 l_302 = l_301 / uint32(32);
const uint32 l_303 = l_301 + l_302;
const uint32 l_304 = l_287.i_1;
shared_memory_3[l_303] = l_304;
const uint32 l_305 = l_287.i_1;
const uint32 l_306 = l_291 + uint32(2);
const uint32 l_307 = l_305 * l_306;
l_mut_0 = l_mut_0 + l_307;
const uint32 l_308 = l_285 * uint32(4);
const uint32 l_309 = l_308 + uint32(2);
const uint32 l_310 = l_309 / uint32(32);
const uint32 l_311 = l_309 + l_310;
const uint32 l_312 = l_287.i_2;
shared_memory_3[l_311] = l_312;
const uint32 l_313 = l_287.i_2;
const uint32 l_314 = l_291 + uint32(4);
const uint32 l_315 = l_313 * l_314;
l_mut_0 = l_mut_0 + l_315;
const uint32 l_316 = l_285 * uint32(4);
const uint32 l_317 = l_316 + uint32(3);
const uint32 l_318 = l_317 / uint32(32);
const uint32 l_319 = l_317 + l_318;
const uint32 l_320 = l_287.i_3;
shared_memory_3[l_319] = l_320;
const uint32 l_321 = l_287.i_3;
const uint32 l_322 = l_291 + uint32(6);
const uint32 l_323 = l_321 * l_322;
l_mut_0 = l_mut_0 + l_323;
}
const uint32 l_324 = uint32(896) + threadIdxGlobal;
l_mut_18 = bool(true);
const bool l_325 = bool(true) && l_mut_18;
if (l_325) {
const uint32_4 l_326 = l_arr_190[uint32(3)];
const uint32 l_327 = l_13 + l_324;
const uint32 l_328 = uint32(2) * l_327;
const uint32 l_329 = l_328 * uint32(4);
const uint32 l_330 = l_329 + uint32(1);
const uint32 l_331 = l_324 * uint32(4);
const uint32 l_332 = l_331 + uint32(0);
const uint32 l_333 = l_332 / uint32(32);
const uint32 l_334 = l_332 + l_333;
const uint32 l_335 = l_326.i_0;
shared_memory_3[l_334] = l_335;
const uint32 l_336 = l_326.i_0;
const uint32 l_337 = l_330 + uint32(0);
const uint32 l_338 = l_336 * l_337;
l_mut_0 = l_mut_0 + l_338;
const uint32 l_339 = l_324 * uint32(4);
const uint32 l_340 = l_339 + uint32(1);
const uint32 l_341 = l_340 / uint32(32);
const uint32 l_342 = l_340 + l_341;
const uint32 l_343 = l_326.i_1;
shared_memory_3[l_342] = l_343;
const uint32 l_344 = l_326.i_1;
const uint32 l_345 = l_330 + uint32(2);
const uint32 l_346 = l_344 * l_345;
l_mut_0 = l_mut_0 + l_346;
const uint32 l_347 = l_324 * uint32(4);
const uint32 l_348 = l_347 + uint32(2);
const uint32 l_349 = l_348 / uint32(32);
const uint32 l_350 = l_348 + l_349;
const uint32 l_351 = l_326.i_2;
shared_memory_3[l_350] = l_351;
const uint32 l_352 = l_326.i_2;
const uint32 l_353 = l_330 + uint32(4);
const uint32 l_354 = l_352 * l_353;
l_mut_0 = l_mut_0 + l_354;
const uint32 l_355 = l_324 * uint32(4);
const uint32 l_356 = l_355 + uint32(3);
const uint32 l_357 = l_356 / uint32(32);
const uint32 l_358 = l_356 + l_357;
const uint32 l_359 = l_326.i_3;
shared_memory_3[l_358] = l_359;
const uint32 l_360 = l_326.i_3;
const uint32 l_361 = l_330 + uint32(6);
const uint32 l_362 = l_360 * l_361;
l_mut_0 = l_mut_0 + l_362;
}
} else {
const uint32 l_363 = uint32(0) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_364 = l_13 * uint32(4);
const uint32 l_365 = l_364 + l_363;
l_mut_366 = uint32(0);
const bool l_367 = l_365 < info.scalars_uint32[1];
if (l_367) {
const uint32 l_368 = buffer_1[l_365];
l_mut_366 = l_368;
}
const uint32 l_369 = l_363 / uint32(32);
const uint32 l_370 = l_363 + l_369;
shared_memory_3[l_370] = l_mut_366;
const uint32 l_371 = uint32(2) * l_365;
const uint32 l_372 = l_371 + uint32(1);
const uint32 l_373 = l_mut_366 * l_372;
l_mut_0 = l_mut_0 + l_373;
}
const uint32 l_374 = uint32(128) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_375 = l_13 * uint32(4);
const uint32 l_376 = l_375 + l_374;
l_mut_366 = uint32(0);
const bool l_377 = l_376 < info.scalars_uint32[1];
if (l_377) {
const uint32 l_378 = buffer_1[l_376];
l_mut_366 = l_378;
}
const uint32 l_379 = l_374 / uint32(32);
const uint32 l_380 = l_374 + l_379;
shared_memory_3[l_380] = l_mut_366;
const uint32 l_381 = uint32(2) * l_376;
const uint32 l_382 = l_381 + uint32(1);
const uint32 l_383 = l_mut_366 * l_382;
l_mut_0 = l_mut_0 + l_383;
}
const uint32 l_384 = uint32(256) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_385 = l_13 * uint32(4);
const uint32 l_386 = l_385 + l_384;
l_mut_366 = uint32(0);
const bool l_387 = l_386 < info.scalars_uint32[1];
if (l_387) {
const uint32 l_388 = buffer_1[l_386];
l_mut_366 = l_388;
}
const uint32 l_389 = l_384 / uint32(32);
const uint32 l_390 = l_384 + l_389;
shared_memory_3[l_390] = l_mut_366;
const uint32 l_391 = uint32(2) * l_386;
const uint32 l_392 = l_391 + uint32(1);
const uint32 l_393 = l_mut_366 * l_392;
l_mut_0 = l_mut_0 + l_393;
}
const uint32 l_394 = uint32(384) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_395 = l_13 * uint32(4);
const uint32 l_396 = l_395 + l_394;
l_mut_366 = uint32(0);
const bool l_397 = l_396 < info.scalars_uint32[1];
if (l_397) {
const uint32 l_398 = buffer_1[l_396];
l_mut_366 = l_398;
}
const uint32 l_399 = l_394 / uint32(32);
const uint32 l_400 = l_394 + l_399;
shared_memory_3[l_400] = l_mut_366;
const uint32 l_401 = uint32(2) * l_396;
const uint32 l_402 = l_401 + uint32(1);
const uint32 l_403 = l_mut_366 * l_402;
l_mut_0 = l_mut_0 + l_403;
}
const uint32 l_404 = uint32(512) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_405 = l_13 * uint32(4);
const uint32 l_406 = l_405 + l_404;
l_mut_366 = uint32(0);
const bool l_407 = l_406 < info.scalars_uint32[1];
if (l_407) {
const uint32 l_408 = buffer_1[l_406];
l_mut_366 = l_408;
}
const uint32 l_409 = l_404 / uint32(32);
const uint32 l_410 = l_404 + l_409;
shared_memory_3[l_410] = l_mut_366;
const uint32 l_411 = uint32(2) * l_406;
const uint32 l_412 = l_411 + uint32(1);
const uint32 l_413 = l_mut_366 * l_412;
l_mut_0 = l_mut_0 + l_413;
}
const uint32 l_414 = uint32(640) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_415 = l_13 * uint32(4);
const uint32 l_416 = l_415 + l_414;
l_mut_366 = uint32(0);
const bool l_417 = l_416 < info.scalars_uint32[1];
if (l_417) {
const uint32 l_418 = buffer_1[l_416];
l_mut_366 = l_418;
}
const uint32 l_419 = l_414 / uint32(32);
const uint32 l_420 = l_414 + l_419;
shared_memory_3[l_420] = l_mut_366;
const uint32 l_421 = uint32(2) * l_416;
const uint32 l_422 = l_421 + uint32(1);
const uint32 l_423 = l_mut_366 * l_422;
l_mut_0 = l_mut_0 + l_423;
}
const uint32 l_424 = uint32(768) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_425 = l_13 * uint32(4);
const uint32 l_426 = l_425 + l_424;
l_mut_366 = uint32(0);
const bool l_427 = l_426 < info.scalars_uint32[1];
if (l_427) {
const uint32 l_428 = buffer_1[l_426];
l_mut_366 = l_428;
}
const uint32 l_429 = l_424 / uint32(32);
const uint32 l_430 = l_424 + l_429;
shared_memory_3[l_430] = l_mut_366;
const uint32 l_431 = uint32(2) * l_426;
const uint32 l_432 = l_431 + uint32(1);
const uint32 l_433 = l_mut_366 * l_432;
l_mut_0 = l_mut_0 + l_433;
}
const uint32 l_434 = uint32(896) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_435 = l_13 * uint32(4);
const uint32 l_436 = l_435 + l_434;
l_mut_366 = uint32(0);
const bool l_437 = l_436 < info.scalars_uint32[1];
if (l_437) {
const uint32 l_438 = buffer_1[l_436];
l_mut_366 = l_438;
}
const uint32 l_439 = l_434 / uint32(32);
const uint32 l_440 = l_434 + l_439;
shared_memory_3[l_440] = l_mut_366;
const uint32 l_441 = uint32(2) * l_436;
const uint32 l_442 = l_441 + uint32(1);
const uint32 l_443 = l_mut_366 * l_442;
l_mut_0 = l_mut_0 + l_443;
}
const uint32 l_444 = uint32(1024) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_445 = l_13 * uint32(4);
const uint32 l_446 = l_445 + l_444;
l_mut_366 = uint32(0);
const bool l_447 = l_446 < info.scalars_uint32[1];
if (l_447) {
const uint32 l_448 = buffer_1[l_446];
l_mut_366 = l_448;
}
const uint32 l_449 = l_444 / uint32(32);
const uint32 l_450 = l_444 + l_449;
shared_memory_3[l_450] = l_mut_366;
const uint32 l_451 = uint32(2) * l_446;
const uint32 l_452 = l_451 + uint32(1);
const uint32 l_453 = l_mut_366 * l_452;
l_mut_0 = l_mut_0 + l_453;
}
const uint32 l_454 = uint32(1152) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_455 = l_13 * uint32(4);
const uint32 l_456 = l_455 + l_454;
l_mut_366 = uint32(0);
const bool l_457 = l_456 < info.scalars_uint32[1];
if (l_457) {
const uint32 l_458 = buffer_1[l_456];
l_mut_366 = l_458;
}
const uint32 l_459 = l_454 / uint32(32);
const uint32 l_460 = l_454 + l_459;
shared_memory_3[l_460] = l_mut_366;
const uint32 l_461 = uint32(2) * l_456;
const uint32 l_462 = l_461 + uint32(1);
const uint32 l_463 = l_mut_366 * l_462;
l_mut_0 = l_mut_0 + l_463;
}
const uint32 l_464 = uint32(1280) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_465 = l_13 * uint32(4);
const uint32 l_466 = l_465 + l_464;
l_mut_366 = uint32(0);
const bool l_467 = l_466 < info.scalars_uint32[1];
if (l_467) {
const uint32 l_468 = buffer_1[l_466];
l_mut_366 = l_468;
}
const uint32 l_469 = l_464 / uint32(32);
const uint32 l_470 = l_464 + l_469;
shared_memory_3[l_470] = l_mut_366;
const uint32 l_471 = uint32(2) * l_466;
const uint32 l_472 = l_471 + uint32(1);
const uint32 l_473 = l_mut_366 * l_472;
l_mut_0 = l_mut_0 + l_473;
}
const uint32 l_474 = uint32(1408) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_475 = l_13 * uint32(4);
const uint32 l_476 = l_475 + l_474;
l_mut_366 = uint32(0);
const bool l_477 = l_476 < info.scalars_uint32[1];
if (l_477) {
const uint32 l_478 = buffer_1[l_476];
l_mut_366 = l_478;
}
const uint32 l_479 = l_474 / uint32(32);
const uint32 l_480 = l_474 + l_479;
shared_memory_3[l_480] = l_mut_366;
const uint32 l_481 = uint32(2) * l_476;
const uint32 l_482 = l_481 + uint32(1);
const uint32 l_483 = l_mut_366 * l_482;
l_mut_0 = l_mut_0 + l_483;
}
const uint32 l_484 = uint32(1536) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_485 = l_13 * uint32(4);
const uint32 l_486 = l_485 + l_484;
l_mut_366 = uint32(0);
const bool l_487 = l_486 < info.scalars_uint32[1];
if (l_487) {
const uint32 l_488 = buffer_1[l_486];
l_mut_366 = l_488;
}
const uint32 l_489 = l_484 / uint32(32);
const uint32 l_490 = l_484 + l_489;
shared_memory_3[l_490] = l_mut_366;
const uint32 l_491 = uint32(2) * l_486;
const uint32 l_492 = l_491 + uint32(1);
const uint32 l_493 = l_mut_366 * l_492;
l_mut_0 = l_mut_0 + l_493;
}
const uint32 l_494 = uint32(1664) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_495 = l_13 * uint32(4);
const uint32 l_496 = l_495 + l_494;
l_mut_366 = uint32(0);
const bool l_497 = l_496 < info.scalars_uint32[1];
if (l_497) {
const uint32 l_498 = buffer_1[l_496];
l_mut_366 = l_498;
}
const uint32 l_499 = l_494 / uint32(32);
const uint32 l_500 = l_494 + l_499;
shared_memory_3[l_500] = l_mut_366;
const uint32 l_501 = uint32(2) * l_496;
const uint32 l_502 = l_501 + uint32(1);
const uint32 l_503 = l_mut_366 * l_502;
l_mut_0 = l_mut_0 + l_503;
}
const uint32 l_504 = uint32(1792) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_505 = l_13 * uint32(4);
const uint32 l_506 = l_505 + l_504;
l_mut_366 = uint32(0);
const bool l_507 = l_506 < info.scalars_uint32[1];
if (l_507) {
const uint32 l_508 = buffer_1[l_506];
l_mut_366 = l_508;
}
const uint32 l_509 = l_504 / uint32(32);
const uint32 l_510 = l_504 + l_509;
shared_memory_3[l_510] = l_mut_366;
const uint32 l_511 = uint32(2) * l_506;
const uint32 l_512 = l_511 + uint32(1);
const uint32 l_513 = l_mut_366 * l_512;
l_mut_0 = l_mut_0 + l_513;
}
const uint32 l_514 = uint32(1920) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_515 = l_13 * uint32(4);
const uint32 l_516 = l_515 + l_514;
l_mut_366 = uint32(0);
const bool l_517 = l_516 < info.scalars_uint32[1];
if (l_517) {
const uint32 l_518 = buffer_1[l_516];
l_mut_366 = l_518;
}
const uint32 l_519 = l_514 / uint32(32);
const uint32 l_520 = l_514 + l_519;
shared_memory_3[l_520] = l_mut_366;
const uint32 l_521 = uint32(2) * l_516;
const uint32 l_522 = l_521 + uint32(1);
const uint32 l_523 = l_mut_366 * l_522;
l_mut_0 = l_mut_0 + l_523;
}
const uint32 l_524 = uint32(2048) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_525 = l_13 * uint32(4);
const uint32 l_526 = l_525 + l_524;
l_mut_366 = uint32(0);
const bool l_527 = l_526 < info.scalars_uint32[1];
if (l_527) {
const uint32 l_528 = buffer_1[l_526];
l_mut_366 = l_528;
}
const uint32 l_529 = l_524 / uint32(32);
const uint32 l_530 = l_524 + l_529;
shared_memory_3[l_530] = l_mut_366;
const uint32 l_531 = uint32(2) * l_526;
const uint32 l_532 = l_531 + uint32(1);
const uint32 l_533 = l_mut_366 * l_532;
l_mut_0 = l_mut_0 + l_533;
}
const uint32 l_534 = uint32(2176) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_535 = l_13 * uint32(4);
const uint32 l_536 = l_535 + l_534;
l_mut_366 = uint32(0);
const bool l_537 = l_536 < info.scalars_uint32[1];
if (l_537) {
const uint32 l_538 = buffer_1[l_536];
l_mut_366 = l_538;
}
const uint32 l_539 = l_534 / uint32(32);
const uint32 l_540 = l_534 + l_539;
shared_memory_3[l_540] = l_mut_366;
const uint32 l_541 = uint32(2) * l_536;
const uint32 l_542 = l_541 + uint32(1);
const uint32 l_543 = l_mut_366 * l_542;
l_mut_0 = l_mut_0 + l_543;
}
const uint32 l_544 = uint32(2304) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_545 = l_13 * uint32(4);
const uint32 l_546 = l_545 + l_544;
l_mut_366 = uint32(0);
const bool l_547 = l_546 < info.scalars_uint32[1];
if (l_547) {
const uint32 l_548 = buffer_1[l_546];
l_mut_366 = l_548;
}
const uint32 l_549 = l_544 / uint32(32);
const uint32 l_550 = l_544 + l_549;
shared_memory_3[l_550] = l_mut_366;
const uint32 l_551 = uint32(2) * l_546;
const uint32 l_552 = l_551 + uint32(1);
const uint32 l_553 = l_mut_366 * l_552;
l_mut_0 = l_mut_0 + l_553;
}
const uint32 l_554 = uint32(2432) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_555 = l_13 * uint32(4);
const uint32 l_556 = l_555 + l_554;
l_mut_366 = uint32(0);
const bool l_557 = l_556 < info.scalars_uint32[1];
if (l_557) {
const uint32 l_558 = buffer_1[l_556];
l_mut_366 = l_558;
}
const uint32 l_559 = l_554 / uint32(32);
const uint32 l_560 = l_554 + l_559;
shared_memory_3[l_560] = l_mut_366;
const uint32 l_561 = uint32(2) * l_556;
const uint32 l_562 = l_561 + uint32(1);
const uint32 l_563 = l_mut_366 * l_562;
l_mut_0 = l_mut_0 + l_563;
}
const uint32 l_564 = uint32(2560) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_565 = l_13 * uint32(4);
const uint32 l_566 = l_565 + l_564;
l_mut_366 = uint32(0);
const bool l_567 = l_566 < info.scalars_uint32[1];
if (l_567) {
const uint32 l_568 = buffer_1[l_566];
l_mut_366 = l_568;
}
const uint32 l_569 = l_564 / uint32(32);
const uint32 l_570 = l_564 + l_569;
shared_memory_3[l_570] = l_mut_366;
const uint32 l_571 = uint32(2) * l_566;
const uint32 l_572 = l_571 + uint32(1);
const uint32 l_573 = l_mut_366 * l_572;
l_mut_0 = l_mut_0 + l_573;
}
const uint32 l_574 = uint32(2688) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_575 = l_13 * uint32(4);
const uint32 l_576 = l_575 + l_574;
l_mut_366 = uint32(0);
const bool l_577 = l_576 < info.scalars_uint32[1];
if (l_577) {
const uint32 l_578 = buffer_1[l_576];
l_mut_366 = l_578;
}
const uint32 l_579 = l_574 / uint32(32);
const uint32 l_580 = l_574 + l_579;
shared_memory_3[l_580] = l_mut_366;
const uint32 l_581 = uint32(2) * l_576;
const uint32 l_582 = l_581 + uint32(1);
const uint32 l_583 = l_mut_366 * l_582;
l_mut_0 = l_mut_0 + l_583;
}
const uint32 l_584 = uint32(2816) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_585 = l_13 * uint32(4);
const uint32 l_586 = l_585 + l_584;
l_mut_366 = uint32(0);
const bool l_587 = l_586 < info.scalars_uint32[1];
if (l_587) {
const uint32 l_588 = buffer_1[l_586];
l_mut_366 = l_588;
}
const uint32 l_589 = l_584 / uint32(32);
const uint32 l_590 = l_584 + l_589;
shared_memory_3[l_590] = l_mut_366;
const uint32 l_591 = uint32(2) * l_586;
const uint32 l_592 = l_591 + uint32(1);
const uint32 l_593 = l_mut_366 * l_592;
l_mut_0 = l_mut_0 + l_593;
}
const uint32 l_594 = uint32(2944) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_595 = l_13 * uint32(4);
const uint32 l_596 = l_595 + l_594;
l_mut_366 = uint32(0);
const bool l_597 = l_596 < info.scalars_uint32[1];
if (l_597) {
const uint32 l_598 = buffer_1[l_596];
l_mut_366 = l_598;
}
const uint32 l_599 = l_594 / uint32(32);
const uint32 l_600 = l_594 + l_599;
shared_memory_3[l_600] = l_mut_366;
const uint32 l_601 = uint32(2) * l_596;
const uint32 l_602 = l_601 + uint32(1);
const uint32 l_603 = l_mut_366 * l_602;
l_mut_0 = l_mut_0 + l_603;
}
const uint32 l_604 = uint32(3072) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_605 = l_13 * uint32(4);
const uint32 l_606 = l_605 + l_604;
l_mut_366 = uint32(0);
const bool l_607 = l_606 < info.scalars_uint32[1];
if (l_607) {
const uint32 l_608 = buffer_1[l_606];
l_mut_366 = l_608;
}
const uint32 l_609 = l_604 / uint32(32);
const uint32 l_610 = l_604 + l_609;
shared_memory_3[l_610] = l_mut_366;
const uint32 l_611 = uint32(2) * l_606;
const uint32 l_612 = l_611 + uint32(1);
const uint32 l_613 = l_mut_366 * l_612;
l_mut_0 = l_mut_0 + l_613;
}
const uint32 l_614 = uint32(3200) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_615 = l_13 * uint32(4);
const uint32 l_616 = l_615 + l_614;
l_mut_366 = uint32(0);
const bool l_617 = l_616 < info.scalars_uint32[1];
if (l_617) {
const uint32 l_618 = buffer_1[l_616];
l_mut_366 = l_618;
}
const uint32 l_619 = l_614 / uint32(32);
const uint32 l_620 = l_614 + l_619;
shared_memory_3[l_620] = l_mut_366;
const uint32 l_621 = uint32(2) * l_616;
const uint32 l_622 = l_621 + uint32(1);
const uint32 l_623 = l_mut_366 * l_622;
l_mut_0 = l_mut_0 + l_623;
}
const uint32 l_624 = uint32(3328) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_625 = l_13 * uint32(4);
const uint32 l_626 = l_625 + l_624;
l_mut_366 = uint32(0);
const bool l_627 = l_626 < info.scalars_uint32[1];
if (l_627) {
const uint32 l_628 = buffer_1[l_626];
l_mut_366 = l_628;
}
const uint32 l_629 = l_624 / uint32(32);
const uint32 l_630 = l_624 + l_629;
shared_memory_3[l_630] = l_mut_366;
const uint32 l_631 = uint32(2) * l_626;
const uint32 l_632 = l_631 + uint32(1);
const uint32 l_633 = l_mut_366 * l_632;
l_mut_0 = l_mut_0 + l_633;
}
const uint32 l_634 = uint32(3456) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_635 = l_13 * uint32(4);
const uint32 l_636 = l_635 + l_634;
l_mut_366 = uint32(0);
const bool l_637 = l_636 < info.scalars_uint32[1];
if (l_637) {
const uint32 l_638 = buffer_1[l_636];
l_mut_366 = l_638;
}
const uint32 l_639 = l_634 / uint32(32);
const uint32 l_640 = l_634 + l_639;
shared_memory_3[l_640] = l_mut_366;
const uint32 l_641 = uint32(2) * l_636;
const uint32 l_642 = l_641 + uint32(1);
const uint32 l_643 = l_mut_366 * l_642;
l_mut_0 = l_mut_0 + l_643;
}
const uint32 l_644 = uint32(3584) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_645 = l_13 * uint32(4);
const uint32 l_646 = l_645 + l_644;
l_mut_366 = uint32(0);
const bool l_647 = l_646 < info.scalars_uint32[1];
if (l_647) {
const uint32 l_648 = buffer_1[l_646];
l_mut_366 = l_648;
}
const uint32 l_649 = l_644 / uint32(32);
const uint32 l_650 = l_644 + l_649;
shared_memory_3[l_650] = l_mut_366;
const uint32 l_651 = uint32(2) * l_646;
const uint32 l_652 = l_651 + uint32(1);
const uint32 l_653 = l_mut_366 * l_652;
l_mut_0 = l_mut_0 + l_653;
}
const uint32 l_654 = uint32(3712) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_655 = l_13 * uint32(4);
const uint32 l_656 = l_655 + l_654;
l_mut_366 = uint32(0);
const bool l_657 = l_656 < info.scalars_uint32[1];
if (l_657) {
const uint32 l_658 = buffer_1[l_656];
l_mut_366 = l_658;
}
const uint32 l_659 = l_654 / uint32(32);
const uint32 l_660 = l_654 + l_659;
shared_memory_3[l_660] = l_mut_366;
const uint32 l_661 = uint32(2) * l_656;
const uint32 l_662 = l_661 + uint32(1);
const uint32 l_663 = l_mut_366 * l_662;
l_mut_0 = l_mut_0 + l_663;
}
const uint32 l_664 = uint32(3840) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_665 = l_13 * uint32(4);
const uint32 l_666 = l_665 + l_664;
l_mut_366 = uint32(0);
const bool l_667 = l_666 < info.scalars_uint32[1];
if (l_667) {
const uint32 l_668 = buffer_1[l_666];
l_mut_366 = l_668;
}
const uint32 l_669 = l_664 / uint32(32);
const uint32 l_670 = l_664 + l_669;
shared_memory_3[l_670] = l_mut_366;
const uint32 l_671 = uint32(2) * l_666;
const uint32 l_672 = l_671 + uint32(1);
const uint32 l_673 = l_mut_366 * l_672;
l_mut_0 = l_mut_0 + l_673;
}
const uint32 l_674 = uint32(3968) + threadIdxGlobal;
l_mut_18 = bool(true);
if (l_mut_18) {
const uint32 l_675 = l_13 * uint32(4);
const uint32 l_676 = l_675 + l_674;
l_mut_366 = uint32(0);
const bool l_677 = l_676 < info.scalars_uint32[1];
if (l_677) {
const uint32 l_678 = buffer_1[l_676];
l_mut_366 = l_678;
}
const uint32 l_679 = l_674 / uint32(32);
const uint32 l_680 = l_674 + l_679;
shared_memory_3[l_680] = l_mut_366;
const uint32 l_681 = uint32(2) * l_676;
const uint32 l_682 = l_681 + uint32(1);
const uint32 l_683 = l_mut_366 * l_682;
l_mut_0 = l_mut_0 + l_683;
}
}
const uint32 l_684 = info.scalars_uint32[4] - uint32(1);
const bool l_685 = l_11 == l_684;
const bool l_686 = threadIdxGlobal == uint32(0);
const bool l_687 = l_685 && l_686;
const uint32 l_688 = info.scalars_uint32[0] % uint32(2);
const bool l_689 = l_688 == uint32(1);
const bool l_690 = l_687 && l_689;
if (l_690) {
const uint32 l_691 = info.scalars_uint32[1] - uint32(1);
const uint32 l_692 = buffer_1[l_691];
const uint32 l_693 = l_692 & uint32(4294901760);
const uint32 l_694 = uint32(2) * l_691;
const uint32 l_695 = l_694 + uint32(1);
const uint32 l_696 = l_693 * l_695;
l_mut_0 = l_mut_0 - l_696;
}
}
__syncthreads();

l_mut_366 = uint32(0);
l_mut_697 = uint32(0);
l_mut_698 = uint32(0);
l_mut_699 = uint32(0);
const uint32 l_701 = l_11 * uint32(128);
const uint32 l_702 = l_701 + threadIdxGlobal;
const bool l_703 = threadIdxGlobal < uint32(128);
const bool l_704 = l_12 && l_703;
if (l_704) {
const uint32 l_705 = l_702 * uint32(2);
const uint32 l_706 = l_705 + uint32(0);
l_mut_707 = uint32(0);
const uint32 l_708 = threadIdxGlobal * uint32(32);
const uint32 l_709 = l_708 + uint32(0);
const uint32 l_710 = l_709 / uint32(32);
const uint32 l_711 = l_709 + l_710;
const uint32 l_712 = shared_memory_3[l_711];
const uint32 l_713 = l_712 & uint32(65535);
const bool l_714 = l_713 != uint32(0);
if (l_714) {
l_mut_707 = l_mut_707 | uint32(1);
}
const uint32 l_715 = l_712 >> uint32(16);
const bool l_716 = l_715 != uint32(0);
if (l_716) {
l_mut_707 = l_mut_707 | uint32(2);
}
const uint32 l_717 = threadIdxGlobal * uint32(32);
const uint32 l_718 = l_717 + uint32(1);
const uint32 l_719 = l_718 / uint32(32);
const uint32 l_720 = l_718 + l_719;
const uint32 l_721 = shared_memory_3[l_720];
const uint32 l_722 = l_721 & uint32(65535);
const bool l_723 = l_722 != uint32(0);
if (l_723) {
l_mut_707 = l_mut_707 | uint32(4);
}
const uint32 l_724 = l_721 >> uint32(16);
const bool l_725 = l_724 != uint32(0);
if (l_725) {
l_mut_707 = l_mut_707 | uint32(8);
}
const uint32 l_726 = threadIdxGlobal * uint32(32);
const uint32 l_727 = l_726 + uint32(2);
const uint32 l_728 = l_727 / uint32(32);
const uint32 l_729 = l_727 + l_728;
const uint32 l_730 = shared_memory_3[l_729];
const uint32 l_731 = l_730 & uint32(65535);
const bool l_732 = l_731 != uint32(0);
if (l_732) {
l_mut_707 = l_mut_707 | uint32(16);
}
const uint32 l_733 = l_730 >> uint32(16);
const bool l_734 = l_733 != uint32(0);
if (l_734) {
l_mut_707 = l_mut_707 | uint32(32);
}
const uint32 l_735 = threadIdxGlobal * uint32(32);
const uint32 l_736 = l_735 + uint32(3);
const uint32 l_737 = l_736 / uint32(32);
const uint32 l_738 = l_736 + l_737;
const uint32 l_739 = shared_memory_3[l_738];
const uint32 l_740 = l_739 & uint32(65535);
const bool l_741 = l_740 != uint32(0);
if (l_741) {
l_mut_707 = l_mut_707 | uint32(64);
}
const uint32 l_742 = l_739 >> uint32(16);
const bool l_743 = l_742 != uint32(0);
if (l_743) {
l_mut_707 = l_mut_707 | uint32(128);
}
const uint32 l_744 = threadIdxGlobal * uint32(32);
const uint32 l_745 = l_744 + uint32(4);
const uint32 l_746 = l_745 / uint32(32);
const uint32 l_747 = l_745 + l_746;
const uint32 l_748 = shared_memory_3[l_747];
const uint32 l_749 = l_748 & uint32(65535);
const bool l_750 = l_749 != uint32(0);
if (l_750) {
l_mut_707 = l_mut_707 | uint32(256);
}
const uint32 l_751 = l_748 >> uint32(16);
const bool l_752 = l_751 != uint32(0);
if (l_752) {
l_mut_707 = l_mut_707 | uint32(512);
}
const uint32 l_753 = threadIdxGlobal * uint32(32);
const uint32 l_754 = l_753 + uint32(5);
const uint32 l_755 = l_754 / uint32(32);
const uint32 l_756 = l_754 + l_755;
const uint32 l_757 = shared_memory_3[l_756];
const uint32 l_758 = l_757 & uint32(65535);
const bool l_759 = l_758 != uint32(0);
if (l_759) {
l_mut_707 = l_mut_707 | uint32(1024);
}
const uint32 l_760 = l_757 >> uint32(16);
const bool l_761 = l_760 != uint32(0);
if (l_761) {
l_mut_707 = l_mut_707 | uint32(2048);
}
const uint32 l_762 = threadIdxGlobal * uint32(32);
const uint32 l_763 = l_762 + uint32(6);
const uint32 l_764 = l_763 / uint32(32);
const uint32 l_765 = l_763 + l_764;
const uint32 l_766 = shared_memory_3[l_765];
const uint32 l_767 = l_766 & uint32(65535);
const bool l_768 = l_767 != uint32(0);
if (l_768) {
l_mut_707 = l_mut_707 | uint32(4096);
}
const uint32 l_769 = l_766 >> uint32(16);
const bool l_770 = l_769 != uint32(0);
if (l_770) {
l_mut_707 = l_mut_707 | uint32(8192);
}
const uint32 l_771 = threadIdxGlobal * uint32(32);
const uint32 l_772 = l_771 + uint32(7);
const uint32 l_773 = l_772 / uint32(32);
const uint32 l_774 = l_772 + l_773;
const uint32 l_775 = shared_memory_3[l_774];
const uint32 l_776 = l_775 & uint32(65535);
const bool l_777 = l_776 != uint32(0);
if (l_777) {
l_mut_707 = l_mut_707 | uint32(16384);
}
const uint32 l_778 = l_775 >> uint32(16);
const bool l_779 = l_778 != uint32(0);
if (l_779) {
l_mut_707 = l_mut_707 | uint32(32768);
}
const uint32 l_780 = threadIdxGlobal * uint32(32);
const uint32 l_781 = l_780 + uint32(8);
const uint32 l_782 = l_781 / uint32(32);
const uint32 l_783 = l_781 + l_782;
const uint32 l_784 = shared_memory_3[l_783];
const uint32 l_785 = l_784 & uint32(65535);
const bool l_786 = l_785 != uint32(0);
if (l_786) {
l_mut_707 = l_mut_707 | uint32(65536);
}
const uint32 l_787 = l_784 >> uint32(16);
const bool l_788 = l_787 != uint32(0);
if (l_788) {
l_mut_707 = l_mut_707 | uint32(131072);
}
const uint32 l_789 = threadIdxGlobal * uint32(32);
const uint32 l_790 = l_789 + uint32(9);
const uint32 l_791 = l_790 / uint32(32);
const uint32 l_792 = l_790 + l_791;
const uint32 l_793 = shared_memory_3[l_792];
const uint32 l_794 = l_793 & uint32(65535);
const bool l_795 = l_794 != uint32(0);
if (l_795) {
l_mut_707 = l_mut_707 | uint32(262144);
}
const uint32 l_796 = l_793 >> uint32(16);
const bool l_797 = l_796 != uint32(0);
if (l_797) {
l_mut_707 = l_mut_707 | uint32(524288);
}
const uint32 l_798 = threadIdxGlobal * uint32(32);
const uint32 l_799 = l_798 + uint32(10);
const uint32 l_800 = l_799 / uint32(32);
const uint32 l_801 = l_799 + l_800;
const uint32 l_802 = shared_memory_3[l_801];
const uint32 l_803 = l_802 & uint32(65535);
const bool l_804 = l_803 != uint32(0);
if (l_804) {
l_mut_707 = l_mut_707 | uint32(1048576);
}
const uint32 l_805 = l_802 >> uint32(16);
const bool l_806 = l_805 != uint32(0);
if (l_806) {
l_mut_707 = l_mut_707 | uint32(2097152);
}
const uint32 l_807 = threadIdxGlobal * uint32(32);
const uint32 l_808 = l_807 + uint32(11);
const uint32 l_809 = l_808 / uint32(32);
const uint32 l_810 = l_808 + l_809;
const uint32 l_811 = shared_memory_3[l_810];
const uint32 l_812 = l_811 & uint32(65535);
const bool l_813 = l_812 != uint32(0);
if (l_813) {
l_mut_707 = l_mut_707 | uint32(4194304);
}
const uint32 l_814 = l_811 >> uint32(16);
const bool l_815 = l_814 != uint32(0);
if (l_815) {
l_mut_707 = l_mut_707 | uint32(8388608);
}
const uint32 l_816 = threadIdxGlobal * uint32(32);
const uint32 l_817 = l_816 + uint32(12);
const uint32 l_818 = l_817 / uint32(32);
const uint32 l_819 = l_817 + l_818;
const uint32 l_820 = shared_memory_3[l_819];
const uint32 l_821 = l_820 & uint32(65535);
const bool l_822 = l_821 != uint32(0);
if (l_822) {
l_mut_707 = l_mut_707 | uint32(16777216);
}
const uint32 l_823 = l_820 >> uint32(16);
const bool l_824 = l_823 != uint32(0);
if (l_824) {
l_mut_707 = l_mut_707 | uint32(33554432);
}
const uint32 l_825 = threadIdxGlobal * uint32(32);
const uint32 l_826 = l_825 + uint32(13);
const uint32 l_827 = l_826 / uint32(32);
const uint32 l_828 = l_826 + l_827;
const uint32 l_829 = shared_memory_3[l_828];
const uint32 l_830 = l_829 & uint32(65535);
const bool l_831 = l_830 != uint32(0);
if (l_831) {
l_mut_707 = l_mut_707 | uint32(67108864);
}
const uint32 l_832 = l_829 >> uint32(16);
const bool l_833 = l_832 != uint32(0);
if (l_833) {
l_mut_707 = l_mut_707 | uint32(134217728);
}
const uint32 l_834 = threadIdxGlobal * uint32(32);
const uint32 l_835 = l_834 + uint32(14);
const uint32 l_836 = l_835 / uint32(32);
const uint32 l_837 = l_835 + l_836;
const uint32 l_838 = shared_memory_3[l_837];
const uint32 l_839 = l_838 & uint32(65535);
const bool l_840 = l_839 != uint32(0);
if (l_840) {
l_mut_707 = l_mut_707 | uint32(268435456);
}
const uint32 l_841 = l_838 >> uint32(16);
const bool l_842 = l_841 != uint32(0);
if (l_842) {
l_mut_707 = l_mut_707 | uint32(536870912);
}
const uint32 l_843 = threadIdxGlobal * uint32(32);
const uint32 l_844 = l_843 + uint32(15);
const uint32 l_845 = l_844 / uint32(32);
const uint32 l_846 = l_844 + l_845;
const uint32 l_847 = shared_memory_3[l_846];
const uint32 l_848 = l_847 & uint32(65535);
const bool l_849 = l_848 != uint32(0);
if (l_849) {
l_mut_707 = l_mut_707 | uint32(1073741824);
}
const uint32 l_850 = l_847 >> uint32(16);
const bool l_851 = l_850 != uint32(0);
if (l_851) {
l_mut_707 = l_mut_707 | uint32(2147483648);
}
const bool l_852 = l_706 >= l_2;
if (l_852) {
l_mut_707 = uint32(0);
} else {
const uint32 l_853 = l_706 * uint32(32);
const uint32 l_854 = info.scalars_uint32[0] - l_853;
const bool l_855 = l_854 < uint32(32);
if (l_855) {
const uint32 l_856 = uint32(1) << l_854;
const uint32 l_857 = l_856 - uint32(1);
l_mut_707 = l_mut_707 & l_857;
}
}
const bool l_858 = l_706 < l_2;
const bool l_859 = bool(true) && l_858;
if (l_859) {
const uint32 l_860 = info.scalars_uint32[6] + l_706;
buffer_2[l_860] = l_mut_707;
}
l_mut_698 = l_mut_707;
const uint32 l_861 = l_702 * uint32(2);
const uint32 l_862 = l_861 + uint32(1);
l_mut_707 = uint32(0);
const uint32 l_863 = threadIdxGlobal * uint32(32);
const uint32 l_864 = l_863 + uint32(16);
const uint32 l_865 = l_864 / uint32(32);
const uint32 l_866 = l_864 + l_865;
const uint32 l_867 = shared_memory_3[l_866];
const uint32 l_868 = l_867 & uint32(65535);
const bool l_869 = l_868 != uint32(0);
if (l_869) {
l_mut_707 = l_mut_707 | uint32(1);
}
const uint32 l_870 = l_867 >> uint32(16);
const bool l_871 = l_870 != uint32(0);
if (l_871) {
l_mut_707 = l_mut_707 | uint32(2);
}
const uint32 l_872 = threadIdxGlobal * uint32(32);
const uint32 l_873 = l_872 + uint32(17);
const uint32 l_874 = l_873 / uint32(32);
const uint32 l_875 = l_873 + l_874;
const uint32 l_876 = shared_memory_3[l_875];
const uint32 l_877 = l_876 & uint32(65535);
const bool l_878 = l_877 != uint32(0);
if (l_878) {
l_mut_707 = l_mut_707 | uint32(4);
}
const uint32 l_879 = l_876 >> uint32(16);
const bool l_880 = l_879 != uint32(0);
if (l_880) {
l_mut_707 = l_mut_707 | uint32(8);
}
const uint32 l_881 = threadIdxGlobal * uint32(32);
const uint32 l_882 = l_881 + uint32(18);
const uint32 l_883 = l_882 / uint32(32);
const uint32 l_884 = l_882 + l_883;
const uint32 l_885 = shared_memory_3[l_884];
const uint32 l_886 = l_885 & uint32(65535);
const bool l_887 = l_886 != uint32(0);
if (l_887) {
l_mut_707 = l_mut_707 | uint32(16);
}
const uint32 l_888 = l_885 >> uint32(16);
const bool l_889 = l_888 != uint32(0);
if (l_889) {
l_mut_707 = l_mut_707 | uint32(32);
}
const uint32 l_890 = threadIdxGlobal * uint32(32);
const uint32 l_891 = l_890 + uint32(19);
const uint32 l_892 = l_891 / uint32(32);
const uint32 l_893 = l_891 + l_892;
const uint32 l_894 = shared_memory_3[l_893];
const uint32 l_895 = l_894 & uint32(65535);
const bool l_896 = l_895 != uint32(0);
if (l_896) {
l_mut_707 = l_mut_707 | uint32(64);
}
const uint32 l_897 = l_894 >> uint32(16);
const bool l_898 = l_897 != uint32(0);
if (l_898) {
l_mut_707 = l_mut_707 | uint32(128);
}
const uint32 l_899 = threadIdxGlobal * uint32(32);
const uint32 l_900 = l_899 + uint32(20);
const uint32 l_901 = l_900 / uint32(32);
const uint32 l_902 = l_900 + l_901;
const uint32 l_903 = shared_memory_3[l_902];
const uint32 l_904 = l_903 & uint32(65535);
const bool l_905 = l_904 != uint32(0);
if (l_905) {
l_mut_707 = l_mut_707 | uint32(256);
}
const uint32 l_906 = l_903 >> uint32(16);
const bool l_907 = l_906 != uint32(0);
if (l_907) {
l_mut_707 = l_mut_707 | uint32(512);
}
const uint32 l_908 = threadIdxGlobal * uint32(32);
const uint32 l_909 = l_908 + uint32(21);
const uint32 l_910 = l_909 / uint32(32);
const uint32 l_911 = l_909 + l_910;
const uint32 l_912 = shared_memory_3[l_911];
const uint32 l_913 = l_912 & uint32(65535);
const bool l_914 = l_913 != uint32(0);
if (l_914) {
l_mut_707 = l_mut_707 | uint32(1024);
}
const uint32 l_915 = l_912 >> uint32(16);
const bool l_916 = l_915 != uint32(0);
if (l_916) {
l_mut_707 = l_mut_707 | uint32(2048);
}
const uint32 l_917 = threadIdxGlobal * uint32(32);
const uint32 l_918 = l_917 + uint32(22);
const uint32 l_919 = l_918 / uint32(32);
const uint32 l_920 = l_918 + l_919;
const uint32 l_921 = shared_memory_3[l_920];
const uint32 l_922 = l_921 & uint32(65535);
const bool l_923 = l_922 != uint32(0);
if (l_923) {
l_mut_707 = l_mut_707 | uint32(4096);
}
const uint32 l_924 = l_921 >> uint32(16);
const bool l_925 = l_924 != uint32(0);
if (l_925) {
l_mut_707 = l_mut_707 | uint32(8192);
}
const uint32 l_926 = threadIdxGlobal * uint32(32);
const uint32 l_927 = l_926 + uint32(23);
const uint32 l_928 = l_927 / uint32(32);
const uint32 l_929 = l_927 + l_928;
const uint32 l_930 = shared_memory_3[l_929];
const uint32 l_931 = l_930 & uint32(65535);
const bool l_932 = l_931 != uint32(0);
if (l_932) {
l_mut_707 = l_mut_707 | uint32(16384);
}
const uint32 l_933 = l_930 >> uint32(16);
const bool l_934 = l_933 != uint32(0);
if (l_934) {
l_mut_707 = l_mut_707 | uint32(32768);
}
const uint32 l_935 = threadIdxGlobal * uint32(32);
const uint32 l_936 = l_935 + uint32(24);
const uint32 l_937 = l_936 / uint32(32);
const uint32 l_938 = l_936 + l_937;
const uint32 l_939 = shared_memory_3[l_938];
const uint32 l_940 = l_939 & uint32(65535);
const bool l_941 = l_940 != uint32(0);
if (l_941) {
l_mut_707 = l_mut_707 | uint32(65536);
}
const uint32 l_942 = l_939 >> uint32(16);
const bool l_943 = l_942 != uint32(0);
if (l_943) {
l_mut_707 = l_mut_707 | uint32(131072);
}
const uint32 l_944 = threadIdxGlobal * uint32(32);
const uint32 l_945 = l_944 + uint32(25);
const uint32 l_946 = l_945 / uint32(32);
const uint32 l_947 = l_945 + l_946;
const uint32 l_948 = shared_memory_3[l_947];
const uint32 l_949 = l_948 & uint32(65535);
const bool l_950 = l_949 != uint32(0);
if (l_950) {
l_mut_707 = l_mut_707 | uint32(262144);
}
const uint32 l_951 = l_948 >> uint32(16);
const bool l_952 = l_951 != uint32(0);
if (l_952) {
l_mut_707 = l_mut_707 | uint32(524288);
}
const uint32 l_953 = threadIdxGlobal * uint32(32);
const uint32 l_954 = l_953 + uint32(26);
const uint32 l_955 = l_954 / uint32(32);
const uint32 l_956 = l_954 + l_955;
const uint32 l_957 = shared_memory_3[l_956];
const uint32 l_958 = l_957 & uint32(65535);
const bool l_959 = l_958 != uint32(0);
if (l_959) {
l_mut_707 = l_mut_707 | uint32(1048576);
}
const uint32 l_960 = l_957 >> uint32(16);
const bool l_961 = l_960 != uint32(0);
if (l_961) {
l_mut_707 = l_mut_707 | uint32(2097152);
}
const uint32 l_962 = threadIdxGlobal * uint32(32);
const uint32 l_963 = l_962 + uint32(27);
const uint32 l_964 = l_963 / uint32(32);
const uint32 l_965 = l_963 + l_964;
const uint32 l_966 = shared_memory_3[l_965];
const uint32 l_967 = l_966 & uint32(65535);
const bool l_968 = l_967 != uint32(0);
if (l_968) {
l_mut_707 = l_mut_707 | uint32(4194304);
}
const uint32 l_969 = l_966 >> uint32(16);
const bool l_970 = l_969 != uint32(0);
if (l_970) {
l_mut_707 = l_mut_707 | uint32(8388608);
}
const uint32 l_971 = threadIdxGlobal * uint32(32);
const uint32 l_972 = l_971 + uint32(28);
const uint32 l_973 = l_972 / uint32(32);
const uint32 l_974 = l_972 + l_973;
const uint32 l_975 = shared_memory_3[l_974];
const uint32 l_976 = l_975 & uint32(65535);
const bool l_977 = l_976 != uint32(0);
if (l_977) {
l_mut_707 = l_mut_707 | uint32(16777216);
}
const uint32 l_978 = l_975 >> uint32(16);
const bool l_979 = l_978 != uint32(0);
if (l_979) {
l_mut_707 = l_mut_707 | uint32(33554432);
}
const uint32 l_980 = threadIdxGlobal * uint32(32);
const uint32 l_981 = l_980 + uint32(29);
const uint32 l_982 = l_981 / uint32(32);
const uint32 l_983 = l_981 + l_982;
const uint32 l_984 = shared_memory_3[l_983];
const uint32 l_985 = l_984 & uint32(65535);
const bool l_986 = l_985 != uint32(0);
if (l_986) {
l_mut_707 = l_mut_707 | uint32(67108864);
}
const uint32 l_987 = l_984 >> uint32(16);
const bool l_988 = l_987 != uint32(0);
if (l_988) {
l_mut_707 = l_mut_707 | uint32(134217728);
}
const uint32 l_989 = threadIdxGlobal * uint32(32);
const uint32 l_990 = l_989 + uint32(30);
const uint32 l_991 = l_990 / uint32(32);
const uint32 l_992 = l_990 + l_991;
const uint32 l_993 = shared_memory_3[l_992];
const uint32 l_994 = l_993 & uint32(65535);
const bool l_995 = l_994 != uint32(0);
if (l_995) {
l_mut_707 = l_mut_707 | uint32(268435456);
}
const uint32 l_996 = l_993 >> uint32(16);
const bool l_997 = l_996 != uint32(0);
if (l_997) {
l_mut_707 = l_mut_707 | uint32(536870912);
}
const uint32 l_998 = threadIdxGlobal * uint32(32);
const uint32 l_999 = l_998 + uint32(31);
const uint32 l_1000 = l_999 / uint32(32);
const uint32 l_1001 = l_999 + l_1000;
const uint32 l_1002 = shared_memory_3[l_1001];
const uint32 l_1003 = l_1002 & uint32(65535);
const bool l_1004 = l_1003 != uint32(0);
if (l_1004) {
l_mut_707 = l_mut_707 | uint32(1073741824);
}
const uint32 l_1005 = l_1002 >> uint32(16);
const bool l_1006 = l_1005 != uint32(0);
if (l_1006) {
l_mut_707 = l_mut_707 | uint32(2147483648);
}
const bool l_1007 = l_862 >= l_2;
if (l_1007) {
l_mut_707 = uint32(0);
} else {
const uint32 l_1008 = l_862 * uint32(32);
const uint32 l_1009 = info.scalars_uint32[0] - l_1008;
const bool l_1010 = l_1009 < uint32(32);
if (l_1010) {
const uint32 l_1011 = uint32(1) << l_1009;
const uint32 l_1012 = l_1011 - uint32(1);
l_mut_707 = l_mut_707 & l_1012;
}
}
const bool l_1013 = l_862 < l_2;
const bool l_1014 = bool(true) && l_1013;
if (l_1014) {
const uint32 l_1015 = info.scalars_uint32[6] + l_862;
buffer_2[l_1015] = l_mut_707;
}
l_mut_699 = l_mut_707;
}
const uint32 l_1016 = uint32(__popc(l_mut_698));
const uint32 l_1017 = uint32(__popc(l_mut_699));
const uint32 l_1018 = l_1016 + l_1017;
shared_memory_5[threadIdxGlobal] = l_1018;
__syncthreads();

l_mut_707 = l_1018;
const bool l_1019 = threadIdxGlobal >= uint32(1);
if (l_1019) {
const uint32 l_1020 = uint32(0) + threadIdxGlobal;
const uint32 l_1021 = l_1020 - uint32(1);
const uint32 l_1022 = shared_memory_5[l_1021];
l_mut_707 = l_mut_707 + l_1022;
}
const uint32 l_1023 = uint32(128) + threadIdxGlobal;
shared_memory_5[l_1023] = l_mut_707;
__syncthreads();

const bool l_1024 = threadIdxGlobal >= uint32(2);
if (l_1024) {
const uint32 l_1025 = uint32(128) + threadIdxGlobal;
const uint32 l_1026 = l_1025 - uint32(2);
const uint32 l_1027 = shared_memory_5[l_1026];
l_mut_707 = l_mut_707 + l_1027;
}
const uint32 l_1028 = uint32(0) + threadIdxGlobal;
shared_memory_5[l_1028] = l_mut_707;
__syncthreads();

const bool l_1029 = threadIdxGlobal >= uint32(4);
if (l_1029) {
const uint32 l_1030 = uint32(0) + threadIdxGlobal;
const uint32 l_1031 = l_1030 - uint32(4);
const uint32 l_1032 = shared_memory_5[l_1031];
l_mut_707 = l_mut_707 + l_1032;
}
const uint32 l_1033 = uint32(128) + threadIdxGlobal;
shared_memory_5[l_1033] = l_mut_707;
__syncthreads();

const bool l_1034 = threadIdxGlobal >= uint32(8);
if (l_1034) {
const uint32 l_1035 = uint32(128) + threadIdxGlobal;
const uint32 l_1036 = l_1035 - uint32(8);
const uint32 l_1037 = shared_memory_5[l_1036];
l_mut_707 = l_mut_707 + l_1037;
}
const uint32 l_1038 = uint32(0) + threadIdxGlobal;
shared_memory_5[l_1038] = l_mut_707;
__syncthreads();

const bool l_1039 = threadIdxGlobal >= uint32(16);
if (l_1039) {
const uint32 l_1040 = uint32(0) + threadIdxGlobal;
const uint32 l_1041 = l_1040 - uint32(16);
const uint32 l_1042 = shared_memory_5[l_1041];
l_mut_707 = l_mut_707 + l_1042;
}
const uint32 l_1043 = uint32(128) + threadIdxGlobal;
shared_memory_5[l_1043] = l_mut_707;
__syncthreads();

const bool l_1044 = threadIdxGlobal >= uint32(32);
if (l_1044) {
const uint32 l_1045 = uint32(128) + threadIdxGlobal;
const uint32 l_1046 = l_1045 - uint32(32);
const uint32 l_1047 = shared_memory_5[l_1046];
l_mut_707 = l_mut_707 + l_1047;
}
const uint32 l_1048 = uint32(0) + threadIdxGlobal;
shared_memory_5[l_1048] = l_mut_707;
__syncthreads();

const bool l_1049 = threadIdxGlobal >= uint32(64);
if (l_1049) {
const uint32 l_1050 = uint32(0) + threadIdxGlobal;
const uint32 l_1051 = l_1050 - uint32(64);
const uint32 l_1052 = shared_memory_5[l_1051];
l_mut_707 = l_mut_707 + l_1052;
}
const uint32 l_1053 = uint32(128) + threadIdxGlobal;
shared_memory_5[l_1053] = l_mut_707;
__syncthreads();

const uint32 l_1054 = l_mut_707 - l_1018;
l_mut_366 = l_1054;
const uint32 l_1055 = shared_memory_5[uint32(255)];
l_mut_697 = l_1055;
const uint32 l_1056 = threadIdxGlobal / uint32(32);
l_mut_707 = uint32(0);
l_mut_1057 = uint32(0);
const uint32 l_1058 = shared_memory_5[uint32(159)];
l_mut_1059 = uint32(0);
const uint32 l_1060 = l_1058 - l_mut_1059;
const uint32 l_1061 = l_1060 & uint32(1);
const bool l_1062 = uint32(0) < l_1056;
if (l_1062) {
l_mut_1057 = l_mut_1057 + l_1061;
}
l_mut_707 = l_mut_707 + l_1061;
const uint32 l_1063 = shared_memory_5[uint32(191)];
l_mut_1059 = uint32(0);
const uint32 l_1064 = shared_memory_5[uint32(159)];
l_mut_1059 = l_1064;
const uint32 l_1065 = l_1063 - l_mut_1059;
const uint32 l_1066 = l_1065 & uint32(1);
const bool l_1067 = uint32(1) < l_1056;
if (l_1067) {
l_mut_1057 = l_mut_1057 + l_1066;
}
l_mut_707 = l_mut_707 + l_1066;
const uint32 l_1068 = shared_memory_5[uint32(223)];
l_mut_1059 = uint32(0);
const uint32 l_1069 = shared_memory_5[uint32(191)];
l_mut_1059 = l_1069;
const uint32 l_1070 = l_1068 - l_mut_1059;
const uint32 l_1071 = l_1070 & uint32(1);
const bool l_1072 = uint32(2) < l_1056;
if (l_1072) {
l_mut_1057 = l_mut_1057 + l_1071;
}
l_mut_707 = l_mut_707 + l_1071;
const uint32 l_1073 = shared_memory_5[uint32(255)];
l_mut_1059 = uint32(0);
const uint32 l_1074 = shared_memory_5[uint32(223)];
l_mut_1059 = l_1074;
const uint32 l_1075 = l_1073 - l_mut_1059;
const uint32 l_1076 = l_1075 & uint32(1);
const bool l_1077 = uint32(3) < l_1056;
if (l_1077) {
l_mut_1057 = l_mut_1057 + l_1076;
}
l_mut_707 = l_mut_707 + l_1076;
l_mut_366 = l_mut_366 + l_mut_1057;
l_mut_697 = l_mut_697 + l_mut_707;
const bool l_1078 = threadIdxGlobal == uint32(0);
const bool l_1079 = l_12 && l_1078;
const bool l_1080 = l_11 > uint32(0);
const bool l_1081 = l_1079 && l_1080;
if (l_1081) {
const uint32 l_1082 = uint32(1073741824) | l_mut_697;
const uint32 l_1083 = uint32(1) + l_11;
uint32* l_1084 = &buffer_3[l_1083];
uint32 _tmp_0 = atomicExch(l_1084, l_1082);
}
const bool l_1085 = threadIdxGlobal < uint32(128);
const bool l_1086 = l_12 && l_1085;
if (l_1086) {
l_mut_1059 = l_mut_366;
l_mut_1057 = l_mut_698;
const uint32 l_1087 = threadIdxGlobal * uint32(32);
const uint32 l_1088 = l_1087 + uint32(0);
const uint32 l_1089 = l_1088 / uint32(32);
const uint32 l_1090 = l_1088 + l_1089;
const uint32 l_1091 = shared_memory_3[l_1090];
const uint32 l_1092 = l_mut_1057 >> uint32(0);
const uint32 l_1093 = l_1092 & uint32(1);
const bool l_1094 = l_1093 == uint32(1);
if (l_1094) {
const uint32 l_1095 = l_1091 >> uint32(0);
const uint32 l_1096 = l_1095 & uint32(65535);
const uint16 l_1097 = uint16(l_1096);
shared_memory_4[l_mut_1059] = l_1097;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1098 = l_mut_1057 >> uint32(1);
const uint32 l_1099 = l_1098 & uint32(1);
const bool l_1100 = l_1099 == uint32(1);
if (l_1100) {
const uint32 l_1101 = l_1091 >> uint32(16);
const uint32 l_1102 = l_1101 & uint32(65535);
const uint16 l_1103 = uint16(l_1102);
shared_memory_4[l_mut_1059] = l_1103;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1104 = threadIdxGlobal * uint32(32);
const uint32 l_1105 = l_1104 + uint32(1);
const uint32 l_1106 = l_1105 / uint32(32);
const uint32 l_1107 = l_1105 + l_1106;
const uint32 l_1108 = shared_memory_3[l_1107];
const uint32 l_1109 = l_mut_1057 >> uint32(2);
const uint32 l_1110 = l_1109 & uint32(1);
const bool l_1111 = l_1110 == uint32(1);
if (l_1111) {
const uint32 l_1112 = l_1108 >> uint32(0);
const uint32 l_1113 = l_1112 & uint32(65535);
const uint16 l_1114 = uint16(l_1113);
shared_memory_4[l_mut_1059] = l_1114;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1115 = l_mut_1057 >> uint32(3);
const uint32 l_1116 = l_1115 & uint32(1);
const bool l_1117 = l_1116 == uint32(1);
if (l_1117) {
const uint32 l_1118 = l_1108 >> uint32(16);
const uint32 l_1119 = l_1118 & uint32(65535);
const uint16 l_1120 = uint16(l_1119);
shared_memory_4[l_mut_1059] = l_1120;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1121 = threadIdxGlobal * uint32(32);
const uint32 l_1122 = l_1121 + uint32(2);
const uint32 l_1123 = l_1122 / uint32(32);
const uint32 l_1124 = l_1122 + l_1123;
const uint32 l_1125 = shared_memory_3[l_1124];
const uint32 l_1126 = l_mut_1057 >> uint32(4);
const uint32 l_1127 = l_1126 & uint32(1);
const bool l_1128 = l_1127 == uint32(1);
if (l_1128) {
const uint32 l_1129 = l_1125 >> uint32(0);
const uint32 l_1130 = l_1129 & uint32(65535);
const uint16 l_1131 = uint16(l_1130);
shared_memory_4[l_mut_1059] = l_1131;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1132 = l_mut_1057 >> uint32(5);
const uint32 l_1133 = l_1132 & uint32(1);
const bool l_1134 = l_1133 == uint32(1);
if (l_1134) {
const uint32 l_1135 = l_1125 >> uint32(16);
const uint32 l_1136 = l_1135 & uint32(65535);
const uint16 l_1137 = uint16(l_1136);
shared_memory_4[l_mut_1059] = l_1137;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1138 = threadIdxGlobal * uint32(32);
const uint32 l_1139 = l_1138 + uint32(3);
const uint32 l_1140 = l_1139 / uint32(32);
const uint32 l_1141 = l_1139 + l_1140;
const uint32 l_1142 = shared_memory_3[l_1141];
const uint32 l_1143 = l_mut_1057 >> uint32(6);
const uint32 l_1144 = l_1143 & uint32(1);
const bool l_1145 = l_1144 == uint32(1);
if (l_1145) {
const uint32 l_1146 = l_1142 >> uint32(0);
const uint32 l_1147 = l_1146 & uint32(65535);
const uint16 l_1148 = uint16(l_1147);
shared_memory_4[l_mut_1059] = l_1148;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1149 = l_mut_1057 >> uint32(7);
const uint32 l_1150 = l_1149 & uint32(1);
const bool l_1151 = l_1150 == uint32(1);
if (l_1151) {
const uint32 l_1152 = l_1142 >> uint32(16);
const uint32 l_1153 = l_1152 & uint32(65535);
const uint16 l_1154 = uint16(l_1153);
shared_memory_4[l_mut_1059] = l_1154;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1155 = threadIdxGlobal * uint32(32);
const uint32 l_1156 = l_1155 + uint32(4);
const uint32 l_1157 = l_1156 / uint32(32);
const uint32 l_1158 = l_1156 + l_1157;
const uint32 l_1159 = shared_memory_3[l_1158];
const uint32 l_1160 = l_mut_1057 >> uint32(8);
const uint32 l_1161 = l_1160 & uint32(1);
const bool l_1162 = l_1161 == uint32(1);
if (l_1162) {
const uint32 l_1163 = l_1159 >> uint32(0);
const uint32 l_1164 = l_1163 & uint32(65535);
const uint16 l_1165 = uint16(l_1164);
shared_memory_4[l_mut_1059] = l_1165;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1166 = l_mut_1057 >> uint32(9);
const uint32 l_1167 = l_1166 & uint32(1);
const bool l_1168 = l_1167 == uint32(1);
if (l_1168) {
const uint32 l_1169 = l_1159 >> uint32(16);
const uint32 l_1170 = l_1169 & uint32(65535);
const uint16 l_1171 = uint16(l_1170);
shared_memory_4[l_mut_1059] = l_1171;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1172 = threadIdxGlobal * uint32(32);
const uint32 l_1173 = l_1172 + uint32(5);
const uint32 l_1174 = l_1173 / uint32(32);
const uint32 l_1175 = l_1173 + l_1174;
const uint32 l_1176 = shared_memory_3[l_1175];
const uint32 l_1177 = l_mut_1057 >> uint32(10);
const uint32 l_1178 = l_1177 & uint32(1);
const bool l_1179 = l_1178 == uint32(1);
if (l_1179) {
const uint32 l_1180 = l_1176 >> uint32(0);
const uint32 l_1181 = l_1180 & uint32(65535);
const uint16 l_1182 = uint16(l_1181);
shared_memory_4[l_mut_1059] = l_1182;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1183 = l_mut_1057 >> uint32(11);
const uint32 l_1184 = l_1183 & uint32(1);
const bool l_1185 = l_1184 == uint32(1);
if (l_1185) {
const uint32 l_1186 = l_1176 >> uint32(16);
const uint32 l_1187 = l_1186 & uint32(65535);
const uint16 l_1188 = uint16(l_1187);
shared_memory_4[l_mut_1059] = l_1188;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1189 = threadIdxGlobal * uint32(32);
const uint32 l_1190 = l_1189 + uint32(6);
const uint32 l_1191 = l_1190 / uint32(32);
const uint32 l_1192 = l_1190 + l_1191;
const uint32 l_1193 = shared_memory_3[l_1192];
const uint32 l_1194 = l_mut_1057 >> uint32(12);
const uint32 l_1195 = l_1194 & uint32(1);
const bool l_1196 = l_1195 == uint32(1);
if (l_1196) {
const uint32 l_1197 = l_1193 >> uint32(0);
const uint32 l_1198 = l_1197 & uint32(65535);
const uint16 l_1199 = uint16(l_1198);
shared_memory_4[l_mut_1059] = l_1199;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1200 = l_mut_1057 >> uint32(13);
const uint32 l_1201 = l_1200 & uint32(1);
const bool l_1202 = l_1201 == uint32(1);
if (l_1202) {
const uint32 l_1203 = l_1193 >> uint32(16);
const uint32 l_1204 = l_1203 & uint32(65535);
const uint16 l_1205 = uint16(l_1204);
shared_memory_4[l_mut_1059] = l_1205;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1206 = threadIdxGlobal * uint32(32);
const uint32 l_1207 = l_1206 + uint32(7);
const uint32 l_1208 = l_1207 / uint32(32);
const uint32 l_1209 = l_1207 + l_1208;
const uint32 l_1210 = shared_memory_3[l_1209];
const uint32 l_1211 = l_mut_1057 >> uint32(14);
const uint32 l_1212 = l_1211 & uint32(1);
const bool l_1213 = l_1212 == uint32(1);
if (l_1213) {
const uint32 l_1214 = l_1210 >> uint32(0);
const uint32 l_1215 = l_1214 & uint32(65535);
const uint16 l_1216 = uint16(l_1215);
shared_memory_4[l_mut_1059] = l_1216;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1217 = l_mut_1057 >> uint32(15);
const uint32 l_1218 = l_1217 & uint32(1);
const bool l_1219 = l_1218 == uint32(1);
if (l_1219) {
const uint32 l_1220 = l_1210 >> uint32(16);
const uint32 l_1221 = l_1220 & uint32(65535);
const uint16 l_1222 = uint16(l_1221);
shared_memory_4[l_mut_1059] = l_1222;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1223 = threadIdxGlobal * uint32(32);
const uint32 l_1224 = l_1223 + uint32(8);
const uint32 l_1225 = l_1224 / uint32(32);
const uint32 l_1226 = l_1224 + l_1225;
const uint32 l_1227 = shared_memory_3[l_1226];
const uint32 l_1228 = l_mut_1057 >> uint32(16);
const uint32 l_1229 = l_1228 & uint32(1);
const bool l_1230 = l_1229 == uint32(1);
if (l_1230) {
const uint32 l_1231 = l_1227 >> uint32(0);
const uint32 l_1232 = l_1231 & uint32(65535);
const uint16 l_1233 = uint16(l_1232);
shared_memory_4[l_mut_1059] = l_1233;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1234 = l_mut_1057 >> uint32(17);
const uint32 l_1235 = l_1234 & uint32(1);
const bool l_1236 = l_1235 == uint32(1);
if (l_1236) {
const uint32 l_1237 = l_1227 >> uint32(16);
const uint32 l_1238 = l_1237 & uint32(65535);
const uint16 l_1239 = uint16(l_1238);
shared_memory_4[l_mut_1059] = l_1239;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1240 = threadIdxGlobal * uint32(32);
const uint32 l_1241 = l_1240 + uint32(9);
const uint32 l_1242 = l_1241 / uint32(32);
const uint32 l_1243 = l_1241 + l_1242;
const uint32 l_1244 = shared_memory_3[l_1243];
const uint32 l_1245 = l_mut_1057 >> uint32(18);
const uint32 l_1246 = l_1245 & uint32(1);
const bool l_1247 = l_1246 == uint32(1);
if (l_1247) {
const uint32 l_1248 = l_1244 >> uint32(0);
const uint32 l_1249 = l_1248 & uint32(65535);
const uint16 l_1250 = uint16(l_1249);
shared_memory_4[l_mut_1059] = l_1250;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1251 = l_mut_1057 >> uint32(19);
const uint32 l_1252 = l_1251 & uint32(1);
const bool l_1253 = l_1252 == uint32(1);
if (l_1253) {
const uint32 l_1254 = l_1244 >> uint32(16);
const uint32 l_1255 = l_1254 & uint32(65535);
const uint16 l_1256 = uint16(l_1255);
shared_memory_4[l_mut_1059] = l_1256;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1257 = threadIdxGlobal * uint32(32);
const uint32 l_1258 = l_1257 + uint32(10);
const uint32 l_1259 = l_1258 / uint32(32);
const uint32 l_1260 = l_1258 + l_1259;
const uint32 l_1261 = shared_memory_3[l_1260];
const uint32 l_1262 = l_mut_1057 >> uint32(20);
const uint32 l_1263 = l_1262 & uint32(1);
const bool l_1264 = l_1263 == uint32(1);
if (l_1264) {
const uint32 l_1265 = l_1261 >> uint32(0);
const uint32 l_1266 = l_1265 & uint32(65535);
const uint16 l_1267 = uint16(l_1266);
shared_memory_4[l_mut_1059] = l_1267;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1268 = l_mut_1057 >> uint32(21);
const uint32 l_1269 = l_1268 & uint32(1);
const bool l_1270 = l_1269 == uint32(1);
if (l_1270) {
const uint32 l_1271 = l_1261 >> uint32(16);
const uint32 l_1272 = l_1271 & uint32(65535);
const uint16 l_1273 = uint16(l_1272);
shared_memory_4[l_mut_1059] = l_1273;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1274 = threadIdxGlobal * uint32(32);
const uint32 l_1275 = l_1274 + uint32(11);
const uint32 l_1276 = l_1275 / uint32(32);
const uint32 l_1277 = l_1275 + l_1276;
const uint32 l_1278 = shared_memory_3[l_1277];
const uint32 l_1279 = l_mut_1057 >> uint32(22);
const uint32 l_1280 = l_1279 & uint32(1);
const bool l_1281 = l_1280 == uint32(1);
if (l_1281) {
const uint32 l_1282 = l_1278 >> uint32(0);
const uint32 l_1283 = l_1282 & uint32(65535);
const uint16 l_1284 = uint16(l_1283);
shared_memory_4[l_mut_1059] = l_1284;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1285 = l_mut_1057 >> uint32(23);
const uint32 l_1286 = l_1285 & uint32(1);
const bool l_1287 = l_1286 == uint32(1);
if (l_1287) {
const uint32 l_1288 = l_1278 >> uint32(16);
const uint32 l_1289 = l_1288 & uint32(65535);
const uint16 l_1290 = uint16(l_1289);
shared_memory_4[l_mut_1059] = l_1290;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1291 = threadIdxGlobal * uint32(32);
const uint32 l_1292 = l_1291 + uint32(12);
const uint32 l_1293 = l_1292 / uint32(32);
const uint32 l_1294 = l_1292 + l_1293;
const uint32 l_1295 = shared_memory_3[l_1294];
const uint32 l_1296 = l_mut_1057 >> uint32(24);
const uint32 l_1297 = l_1296 & uint32(1);
const bool l_1298 = l_1297 == uint32(1);
if (l_1298) {
const uint32 l_1299 = l_1295 >> uint32(0);
const uint32 l_1300 = l_1299 & uint32(65535);
const uint16 l_1301 = uint16(l_1300);
shared_memory_4[l_mut_1059] = l_1301;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1302 = l_mut_1057 >> uint32(25);
const uint32 l_1303 = l_1302 & uint32(1);
const bool l_1304 = l_1303 == uint32(1);
if (l_1304) {
const uint32 l_1305 = l_1295 >> uint32(16);
const uint32 l_1306 = l_1305 & uint32(65535);
const uint16 l_1307 = uint16(l_1306);
shared_memory_4[l_mut_1059] = l_1307;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1308 = threadIdxGlobal * uint32(32);
const uint32 l_1309 = l_1308 + uint32(13);
const uint32 l_1310 = l_1309 / uint32(32);
const uint32 l_1311 = l_1309 + l_1310;
const uint32 l_1312 = shared_memory_3[l_1311];
const uint32 l_1313 = l_mut_1057 >> uint32(26);
const uint32 l_1314 = l_1313 & uint32(1);
const bool l_1315 = l_1314 == uint32(1);
if (l_1315) {
const uint32 l_1316 = l_1312 >> uint32(0);
const uint32 l_1317 = l_1316 & uint32(65535);
const uint16 l_1318 = uint16(l_1317);
shared_memory_4[l_mut_1059] = l_1318;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1319 = l_mut_1057 >> uint32(27);
const uint32 l_1320 = l_1319 & uint32(1);
const bool l_1321 = l_1320 == uint32(1);
if (l_1321) {
const uint32 l_1322 = l_1312 >> uint32(16);
const uint32 l_1323 = l_1322 & uint32(65535);
const uint16 l_1324 = uint16(l_1323);
shared_memory_4[l_mut_1059] = l_1324;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1325 = threadIdxGlobal * uint32(32);
const uint32 l_1326 = l_1325 + uint32(14);
const uint32 l_1327 = l_1326 / uint32(32);
const uint32 l_1328 = l_1326 + l_1327;
const uint32 l_1329 = shared_memory_3[l_1328];
const uint32 l_1330 = l_mut_1057 >> uint32(28);
const uint32 l_1331 = l_1330 & uint32(1);
const bool l_1332 = l_1331 == uint32(1);
if (l_1332) {
const uint32 l_1333 = l_1329 >> uint32(0);
const uint32 l_1334 = l_1333 & uint32(65535);
const uint16 l_1335 = uint16(l_1334);
shared_memory_4[l_mut_1059] = l_1335;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1336 = l_mut_1057 >> uint32(29);
const uint32 l_1337 = l_1336 & uint32(1);
const bool l_1338 = l_1337 == uint32(1);
if (l_1338) {
const uint32 l_1339 = l_1329 >> uint32(16);
const uint32 l_1340 = l_1339 & uint32(65535);
const uint16 l_1341 = uint16(l_1340);
shared_memory_4[l_mut_1059] = l_1341;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1342 = threadIdxGlobal * uint32(32);
const uint32 l_1343 = l_1342 + uint32(15);
const uint32 l_1344 = l_1343 / uint32(32);
const uint32 l_1345 = l_1343 + l_1344;
const uint32 l_1346 = shared_memory_3[l_1345];
const uint32 l_1347 = l_mut_1057 >> uint32(30);
const uint32 l_1348 = l_1347 & uint32(1);
const bool l_1349 = l_1348 == uint32(1);
if (l_1349) {
const uint32 l_1350 = l_1346 >> uint32(0);
const uint32 l_1351 = l_1350 & uint32(65535);
const uint16 l_1352 = uint16(l_1351);
shared_memory_4[l_mut_1059] = l_1352;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1353 = l_mut_1057 >> uint32(31);
const uint32 l_1354 = l_1353 & uint32(1);
const bool l_1355 = l_1354 == uint32(1);
if (l_1355) {
const uint32 l_1356 = l_1346 >> uint32(16);
const uint32 l_1357 = l_1356 & uint32(65535);
const uint16 l_1358 = uint16(l_1357);
shared_memory_4[l_mut_1059] = l_1358;
l_mut_1059 = l_mut_1059 + uint32(1);
}
l_mut_1057 = l_mut_698;
l_mut_1057 = l_mut_699;
const uint32 l_1359 = threadIdxGlobal * uint32(32);
const uint32 l_1360 = l_1359 + uint32(16);
const uint32 l_1361 = l_1360 / uint32(32);
const uint32 l_1362 = l_1360 + l_1361;
const uint32 l_1363 = shared_memory_3[l_1362];
const uint32 l_1364 = l_mut_1057 >> uint32(0);
const uint32 l_1365 = l_1364 & uint32(1);
const bool l_1366 = l_1365 == uint32(1);
if (l_1366) {
const uint32 l_1367 = l_1363 >> uint32(0);
const uint32 l_1368 = l_1367 & uint32(65535);
const uint16 l_1369 = uint16(l_1368);
shared_memory_4[l_mut_1059] = l_1369;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1370 = l_mut_1057 >> uint32(1);
const uint32 l_1371 = l_1370 & uint32(1);
const bool l_1372 = l_1371 == uint32(1);
if (l_1372) {
const uint32 l_1373 = l_1363 >> uint32(16);
const uint32 l_1374 = l_1373 & uint32(65535);
const uint16 l_1375 = uint16(l_1374);
shared_memory_4[l_mut_1059] = l_1375;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1376 = threadIdxGlobal * uint32(32);
const uint32 l_1377 = l_1376 + uint32(17);
const uint32 l_1378 = l_1377 / uint32(32);
const uint32 l_1379 = l_1377 + l_1378;
const uint32 l_1380 = shared_memory_3[l_1379];
const uint32 l_1381 = l_mut_1057 >> uint32(2);
const uint32 l_1382 = l_1381 & uint32(1);
const bool l_1383 = l_1382 == uint32(1);
if (l_1383) {
const uint32 l_1384 = l_1380 >> uint32(0);
const uint32 l_1385 = l_1384 & uint32(65535);
const uint16 l_1386 = uint16(l_1385);
shared_memory_4[l_mut_1059] = l_1386;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1387 = l_mut_1057 >> uint32(3);
const uint32 l_1388 = l_1387 & uint32(1);
const bool l_1389 = l_1388 == uint32(1);
if (l_1389) {
const uint32 l_1390 = l_1380 >> uint32(16);
const uint32 l_1391 = l_1390 & uint32(65535);
const uint16 l_1392 = uint16(l_1391);
shared_memory_4[l_mut_1059] = l_1392;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1393 = threadIdxGlobal * uint32(32);
const uint32 l_1394 = l_1393 + uint32(18);
const uint32 l_1395 = l_1394 / uint32(32);
const uint32 l_1396 = l_1394 + l_1395;
const uint32 l_1397 = shared_memory_3[l_1396];
const uint32 l_1398 = l_mut_1057 >> uint32(4);
const uint32 l_1399 = l_1398 & uint32(1);
const bool l_1400 = l_1399 == uint32(1);
if (l_1400) {
const uint32 l_1401 = l_1397 >> uint32(0);
const uint32 l_1402 = l_1401 & uint32(65535);
const uint16 l_1403 = uint16(l_1402);
shared_memory_4[l_mut_1059] = l_1403;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1404 = l_mut_1057 >> uint32(5);
const uint32 l_1405 = l_1404 & uint32(1);
const bool l_1406 = l_1405 == uint32(1);
if (l_1406) {
const uint32 l_1407 = l_1397 >> uint32(16);
const uint32 l_1408 = l_1407 & uint32(65535);
const uint16 l_1409 = uint16(l_1408);
shared_memory_4[l_mut_1059] = l_1409;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1410 = threadIdxGlobal * uint32(32);
const uint32 l_1411 = l_1410 + uint32(19);
const uint32 l_1412 = l_1411 / uint32(32);
const uint32 l_1413 = l_1411 + l_1412;
const uint32 l_1414 = shared_memory_3[l_1413];
const uint32 l_1415 = l_mut_1057 >> uint32(6);
const uint32 l_1416 = l_1415 & uint32(1);
const bool l_1417 = l_1416 == uint32(1);
if (l_1417) {
const uint32 l_1418 = l_1414 >> uint32(0);
const uint32 l_1419 = l_1418 & uint32(65535);
const uint16 l_1420 = uint16(l_1419);
shared_memory_4[l_mut_1059] = l_1420;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1421 = l_mut_1057 >> uint32(7);
const uint32 l_1422 = l_1421 & uint32(1);
const bool l_1423 = l_1422 == uint32(1);
if (l_1423) {
const uint32 l_1424 = l_1414 >> uint32(16);
const uint32 l_1425 = l_1424 & uint32(65535);
const uint16 l_1426 = uint16(l_1425);
shared_memory_4[l_mut_1059] = l_1426;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1427 = threadIdxGlobal * uint32(32);
const uint32 l_1428 = l_1427 + uint32(20);
const uint32 l_1429 = l_1428 / uint32(32);
const uint32 l_1430 = l_1428 + l_1429;
const uint32 l_1431 = shared_memory_3[l_1430];
const uint32 l_1432 = l_mut_1057 >> uint32(8);
const uint32 l_1433 = l_1432 & uint32(1);
const bool l_1434 = l_1433 == uint32(1);
if (l_1434) {
const uint32 l_1435 = l_1431 >> uint32(0);
const uint32 l_1436 = l_1435 & uint32(65535);
const uint16 l_1437 = uint16(l_1436);
shared_memory_4[l_mut_1059] = l_1437;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1438 = l_mut_1057 >> uint32(9);
const uint32 l_1439 = l_1438 & uint32(1);
const bool l_1440 = l_1439 == uint32(1);
if (l_1440) {
const uint32 l_1441 = l_1431 >> uint32(16);
const uint32 l_1442 = l_1441 & uint32(65535);
const uint16 l_1443 = uint16(l_1442);
shared_memory_4[l_mut_1059] = l_1443;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1444 = threadIdxGlobal * uint32(32);
const uint32 l_1445 = l_1444 + uint32(21);
const uint32 l_1446 = l_1445 / uint32(32);
const uint32 l_1447 = l_1445 + l_1446;
const uint32 l_1448 = shared_memory_3[l_1447];
const uint32 l_1449 = l_mut_1057 >> uint32(10);
const uint32 l_1450 = l_1449 & uint32(1);
const bool l_1451 = l_1450 == uint32(1);
if (l_1451) {
const uint32 l_1452 = l_1448 >> uint32(0);
const uint32 l_1453 = l_1452 & uint32(65535);
const uint16 l_1454 = uint16(l_1453);
shared_memory_4[l_mut_1059] = l_1454;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1455 = l_mut_1057 >> uint32(11);
const uint32 l_1456 = l_1455 & uint32(1);
const bool l_1457 = l_1456 == uint32(1);
if (l_1457) {
const uint32 l_1458 = l_1448 >> uint32(16);
const uint32 l_1459 = l_1458 & uint32(65535);
const uint16 l_1460 = uint16(l_1459);
shared_memory_4[l_mut_1059] = l_1460;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1461 = threadIdxGlobal * uint32(32);
const uint32 l_1462 = l_1461 + uint32(22);
const uint32 l_1463 = l_1462 / uint32(32);
const uint32 l_1464 = l_1462 + l_1463;
const uint32 l_1465 = shared_memory_3[l_1464];
const uint32 l_1466 = l_mut_1057 >> uint32(12);
const uint32 l_1467 = l_1466 & uint32(1);
const bool l_1468 = l_1467 == uint32(1);
if (l_1468) {
const uint32 l_1469 = l_1465 >> uint32(0);
const uint32 l_1470 = l_1469 & uint32(65535);
const uint16 l_1471 = uint16(l_1470);
shared_memory_4[l_mut_1059] = l_1471;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1472 = l_mut_1057 >> uint32(13);
const uint32 l_1473 = l_1472 & uint32(1);
const bool l_1474 = l_1473 == uint32(1);
if (l_1474) {
const uint32 l_1475 = l_1465 >> uint32(16);
const uint32 l_1476 = l_1475 & uint32(65535);
const uint16 l_1477 = uint16(l_1476);
shared_memory_4[l_mut_1059] = l_1477;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1478 = threadIdxGlobal * uint32(32);
const uint32 l_1479 = l_1478 + uint32(23);
const uint32 l_1480 = l_1479 / uint32(32);
const uint32 l_1481 = l_1479 + l_1480;
const uint32 l_1482 = shared_memory_3[l_1481];
const uint32 l_1483 = l_mut_1057 >> uint32(14);
const uint32 l_1484 = l_1483 & uint32(1);
const bool l_1485 = l_1484 == uint32(1);
if (l_1485) {
const uint32 l_1486 = l_1482 >> uint32(0);
const uint32 l_1487 = l_1486 & uint32(65535);
const uint16 l_1488 = uint16(l_1487);
shared_memory_4[l_mut_1059] = l_1488;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1489 = l_mut_1057 >> uint32(15);
const uint32 l_1490 = l_1489 & uint32(1);
const bool l_1491 = l_1490 == uint32(1);
if (l_1491) {
const uint32 l_1492 = l_1482 >> uint32(16);
const uint32 l_1493 = l_1492 & uint32(65535);
const uint16 l_1494 = uint16(l_1493);
shared_memory_4[l_mut_1059] = l_1494;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1495 = threadIdxGlobal * uint32(32);
const uint32 l_1496 = l_1495 + uint32(24);
const uint32 l_1497 = l_1496 / uint32(32);
const uint32 l_1498 = l_1496 + l_1497;
const uint32 l_1499 = shared_memory_3[l_1498];
const uint32 l_1500 = l_mut_1057 >> uint32(16);
const uint32 l_1501 = l_1500 & uint32(1);
const bool l_1502 = l_1501 == uint32(1);
if (l_1502) {
const uint32 l_1503 = l_1499 >> uint32(0);
const uint32 l_1504 = l_1503 & uint32(65535);
const uint16 l_1505 = uint16(l_1504);
shared_memory_4[l_mut_1059] = l_1505;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1506 = l_mut_1057 >> uint32(17);
const uint32 l_1507 = l_1506 & uint32(1);
const bool l_1508 = l_1507 == uint32(1);
if (l_1508) {
const uint32 l_1509 = l_1499 >> uint32(16);
const uint32 l_1510 = l_1509 & uint32(65535);
const uint16 l_1511 = uint16(l_1510);
shared_memory_4[l_mut_1059] = l_1511;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1512 = threadIdxGlobal * uint32(32);
const uint32 l_1513 = l_1512 + uint32(25);
const uint32 l_1514 = l_1513 / uint32(32);
const uint32 l_1515 = l_1513 + l_1514;
const uint32 l_1516 = shared_memory_3[l_1515];
const uint32 l_1517 = l_mut_1057 >> uint32(18);
const uint32 l_1518 = l_1517 & uint32(1);
const bool l_1519 = l_1518 == uint32(1);
if (l_1519) {
const uint32 l_1520 = l_1516 >> uint32(0);
const uint32 l_1521 = l_1520 & uint32(65535);
const uint16 l_1522 = uint16(l_1521);
shared_memory_4[l_mut_1059] = l_1522;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1523 = l_mut_1057 >> uint32(19);
const uint32 l_1524 = l_1523 & uint32(1);
const bool l_1525 = l_1524 == uint32(1);
if (l_1525) {
const uint32 l_1526 = l_1516 >> uint32(16);
const uint32 l_1527 = l_1526 & uint32(65535);
const uint16 l_1528 = uint16(l_1527);
shared_memory_4[l_mut_1059] = l_1528;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1529 = threadIdxGlobal * uint32(32);
const uint32 l_1530 = l_1529 + uint32(26);
const uint32 l_1531 = l_1530 / uint32(32);
const uint32 l_1532 = l_1530 + l_1531;
const uint32 l_1533 = shared_memory_3[l_1532];
const uint32 l_1534 = l_mut_1057 >> uint32(20);
const uint32 l_1535 = l_1534 & uint32(1);
const bool l_1536 = l_1535 == uint32(1);
if (l_1536) {
const uint32 l_1537 = l_1533 >> uint32(0);
const uint32 l_1538 = l_1537 & uint32(65535);
const uint16 l_1539 = uint16(l_1538);
shared_memory_4[l_mut_1059] = l_1539;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1540 = l_mut_1057 >> uint32(21);
const uint32 l_1541 = l_1540 & uint32(1);
const bool l_1542 = l_1541 == uint32(1);
if (l_1542) {
const uint32 l_1543 = l_1533 >> uint32(16);
const uint32 l_1544 = l_1543 & uint32(65535);
const uint16 l_1545 = uint16(l_1544);
shared_memory_4[l_mut_1059] = l_1545;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1546 = threadIdxGlobal * uint32(32);
const uint32 l_1547 = l_1546 + uint32(27);
const uint32 l_1548 = l_1547 / uint32(32);
const uint32 l_1549 = l_1547 + l_1548;
const uint32 l_1550 = shared_memory_3[l_1549];
const uint32 l_1551 = l_mut_1057 >> uint32(22);
const uint32 l_1552 = l_1551 & uint32(1);
const bool l_1553 = l_1552 == uint32(1);
if (l_1553) {
const uint32 l_1554 = l_1550 >> uint32(0);
const uint32 l_1555 = l_1554 & uint32(65535);
const uint16 l_1556 = uint16(l_1555);
shared_memory_4[l_mut_1059] = l_1556;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1557 = l_mut_1057 >> uint32(23);
const uint32 l_1558 = l_1557 & uint32(1);
const bool l_1559 = l_1558 == uint32(1);
if (l_1559) {
const uint32 l_1560 = l_1550 >> uint32(16);
const uint32 l_1561 = l_1560 & uint32(65535);
const uint16 l_1562 = uint16(l_1561);
shared_memory_4[l_mut_1059] = l_1562;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1563 = threadIdxGlobal * uint32(32);
const uint32 l_1564 = l_1563 + uint32(28);
const uint32 l_1565 = l_1564 / uint32(32);
const uint32 l_1566 = l_1564 + l_1565;
const uint32 l_1567 = shared_memory_3[l_1566];
const uint32 l_1568 = l_mut_1057 >> uint32(24);
const uint32 l_1569 = l_1568 & uint32(1);
const bool l_1570 = l_1569 == uint32(1);
if (l_1570) {
const uint32 l_1571 = l_1567 >> uint32(0);
const uint32 l_1572 = l_1571 & uint32(65535);
const uint16 l_1573 = uint16(l_1572);
shared_memory_4[l_mut_1059] = l_1573;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1574 = l_mut_1057 >> uint32(25);
const uint32 l_1575 = l_1574 & uint32(1);
const bool l_1576 = l_1575 == uint32(1);
if (l_1576) {
const uint32 l_1577 = l_1567 >> uint32(16);
const uint32 l_1578 = l_1577 & uint32(65535);
const uint16 l_1579 = uint16(l_1578);
shared_memory_4[l_mut_1059] = l_1579;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1580 = threadIdxGlobal * uint32(32);
const uint32 l_1581 = l_1580 + uint32(29);
const uint32 l_1582 = l_1581 / uint32(32);
const uint32 l_1583 = l_1581 + l_1582;
const uint32 l_1584 = shared_memory_3[l_1583];
const uint32 l_1585 = l_mut_1057 >> uint32(26);
const uint32 l_1586 = l_1585 & uint32(1);
const bool l_1587 = l_1586 == uint32(1);
if (l_1587) {
const uint32 l_1588 = l_1584 >> uint32(0);
const uint32 l_1589 = l_1588 & uint32(65535);
const uint16 l_1590 = uint16(l_1589);
shared_memory_4[l_mut_1059] = l_1590;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1591 = l_mut_1057 >> uint32(27);
const uint32 l_1592 = l_1591 & uint32(1);
const bool l_1593 = l_1592 == uint32(1);
if (l_1593) {
const uint32 l_1594 = l_1584 >> uint32(16);
const uint32 l_1595 = l_1594 & uint32(65535);
const uint16 l_1596 = uint16(l_1595);
shared_memory_4[l_mut_1059] = l_1596;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1597 = threadIdxGlobal * uint32(32);
const uint32 l_1598 = l_1597 + uint32(30);
const uint32 l_1599 = l_1598 / uint32(32);
const uint32 l_1600 = l_1598 + l_1599;
const uint32 l_1601 = shared_memory_3[l_1600];
const uint32 l_1602 = l_mut_1057 >> uint32(28);
const uint32 l_1603 = l_1602 & uint32(1);
const bool l_1604 = l_1603 == uint32(1);
if (l_1604) {
const uint32 l_1605 = l_1601 >> uint32(0);
const uint32 l_1606 = l_1605 & uint32(65535);
const uint16 l_1607 = uint16(l_1606);
shared_memory_4[l_mut_1059] = l_1607;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1608 = l_mut_1057 >> uint32(29);
const uint32 l_1609 = l_1608 & uint32(1);
const bool l_1610 = l_1609 == uint32(1);
if (l_1610) {
const uint32 l_1611 = l_1601 >> uint32(16);
const uint32 l_1612 = l_1611 & uint32(65535);
const uint16 l_1613 = uint16(l_1612);
shared_memory_4[l_mut_1059] = l_1613;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1614 = threadIdxGlobal * uint32(32);
const uint32 l_1615 = l_1614 + uint32(31);
const uint32 l_1616 = l_1615 / uint32(32);
const uint32 l_1617 = l_1615 + l_1616;
const uint32 l_1618 = shared_memory_3[l_1617];
const uint32 l_1619 = l_mut_1057 >> uint32(30);
const uint32 l_1620 = l_1619 & uint32(1);
const bool l_1621 = l_1620 == uint32(1);
if (l_1621) {
const uint32 l_1622 = l_1618 >> uint32(0);
const uint32 l_1623 = l_1622 & uint32(65535);
const uint16 l_1624 = uint16(l_1623);
shared_memory_4[l_mut_1059] = l_1624;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1625 = l_mut_1057 >> uint32(31);
const uint32 l_1626 = l_1625 & uint32(1);
const bool l_1627 = l_1626 == uint32(1);
if (l_1627) {
const uint32 l_1628 = l_1618 >> uint32(16);
const uint32 l_1629 = l_1628 & uint32(65535);
const uint16 l_1630 = uint16(l_1629);
shared_memory_4[l_mut_1059] = l_1630;
l_mut_1059 = l_mut_1059 + uint32(1);
}
const uint32 l_1631 = threadIdxGlobal % uint32(32);
const bool l_1632 = l_1631 == uint32(31);
const uint32 l_1633 = l_mut_1059 % uint32(2);
const bool l_1634 = l_1633 == uint32(1);
const bool l_1635 = l_1632 && l_1634;
if (l_1635) {
const uint16 l_1636 = uint16(uint32(0));
shared_memory_4[l_mut_1059] = l_1636;
}
}
const bool l_1637 = threadIdxGlobal < warpSize;
const bool l_1638 = l_12 && l_1637;
if (l_1638) {
const bool l_1639 = l_11 == uint32(0);
if (l_1639) {
const bool l_1640 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_1640) {
const uint32 l_1641 = uint32(2147483648) | l_mut_697;
uint32* l_1642 = &buffer_3[uint32(1)];
uint32 _tmp_1 = atomicExch(l_1642, l_1641);
shared_memory_6[uint32(1)] = uint32(0);
}
} else {
l_mut_1059 = uint32(0);
l_mut_1057 = l_11;
l_mut_18 = bool(false);
while (true) {
const bool l_1643 = !l_mut_18;
const bool l_1644 = !l_1643;
if (l_1644) {
break;}
l_mut_707 = uint32(2147483648);
const bool l_1645 = l_mut_1057 > uint32(idxGlobal) % warpSize;
if (l_1645) {
const uint32 l_1646 = l_mut_1057 - uint32(idxGlobal) % warpSize;
uint32* l_1647 = &buffer_3[l_1646];
const uint32 l_1648 = atomicAdd(l_1647, uint32(0));
l_mut_707 = l_1648;
}
while (true) {
const bool l_1649 = l_mut_707 >= uint32(1073741824);
const bool l_1650 = { __all_sync(-1, l_1649)};
const bool l_1651 = !l_1650;
const bool l_1652 = !l_1651;
if (l_1652) {
break;}
const bool l_1653 = l_mut_707 < uint32(1073741824);
if (l_1653) {
const uint32 l_1654 = l_mut_1057 - uint32(idxGlobal) % warpSize;
uint32* l_1655 = &buffer_3[l_1654];
const uint32 l_1656 = atomicAdd(l_1655, uint32(0));
l_mut_707 = l_1656;
}
}
const bool l_1657 = l_mut_707 >= uint32(2147483648);
l_mut_1658 = uint32(4294967295);
if (l_1657) {
l_mut_1658 = uint32(idxGlobal) % warpSize;
}

const uint32_4 l_1659 = { __ballot_sync(-1, l_1657), 0, 0, 0 };
l_mut_1660 = uint32(4294967295);
const uint32 l_1661 = l_1659.i_0;
const bool l_1662 = l_mut_1660 == uint32(4294967295);
const bool l_1663 = l_1661 != uint32(0);
const bool l_1664 = l_1662 && l_1663;
if (l_1664) {
const uint32 l_1665 = uint32(__ffs(int32(l_1661)));
const uint32 l_1666 = uint32(0) + l_1665;
const uint32 l_1667 = l_1666 - uint32(1);
l_mut_1660 = l_1667;
}
const uint32 l_1668 = l_1659.i_1;
const bool l_1669 = l_mut_1660 == uint32(4294967295);
const bool l_1670 = l_1668 != uint32(0);
const bool l_1671 = l_1669 && l_1670;
if (l_1671) {
const uint32 l_1672 = uint32(__ffs(int32(l_1668)));
const uint32 l_1673 = uint32(32) + l_1672;
const uint32 l_1674 = l_1673 - uint32(1);
l_mut_1660 = l_1674;
}
const uint32 l_1675 = l_1659.i_2;
const bool l_1676 = l_mut_1660 == uint32(4294967295);
const bool l_1677 = l_1675 != uint32(0);
const bool l_1678 = l_1676 && l_1677;
if (l_1678) {
const uint32 l_1679 = uint32(__ffs(int32(l_1675)));
const uint32 l_1680 = uint32(64) + l_1679;
const uint32 l_1681 = l_1680 - uint32(1);
l_mut_1660 = l_1681;
}
const uint32 l_1682 = l_1659.i_3;
const bool l_1683 = l_mut_1660 == uint32(4294967295);
const bool l_1684 = l_1682 != uint32(0);
const bool l_1685 = l_1683 && l_1684;
if (l_1685) {
const uint32 l_1686 = uint32(__ffs(int32(l_1682)));
const uint32 l_1687 = uint32(96) + l_1686;
const uint32 l_1688 = l_1687 - uint32(1);
l_mut_1660 = l_1688;
}
l_mut_1658 = l_mut_1660;
const bool l_1689 = uint32(idxGlobal) % warpSize <= l_mut_1658;
if (l_1689) {
const uint32 l_1690 = l_mut_707 & uint32(1073741823);
l_mut_1059 = l_mut_1059 + l_1690;
}
const bool l_1691 = l_mut_1658 != uint32(4294967295);
if (l_1691) {
l_mut_18 = bool(true);
} else {
l_mut_1057 = l_mut_1057 - warpSize;
}
}
auto plane_l_1692 = [&]() -> uint32 {
    uint32 acc = l_mut_1059;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const uint32 l_1692 = plane_l_1692();
const bool l_1693 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_1693) {
const uint32 l_1694 = l_1692 + l_mut_697;
const uint32 l_1695 = uint32(2147483648) | l_1694;
const uint32 l_1696 = uint32(1) + l_11;
uint32* l_1697 = &buffer_3[l_1696];
uint32 _tmp_2 = atomicExch(l_1697, l_1695);
shared_memory_6[uint32(1)] = l_1692;
}
}
}
__syncthreads();

const bool l_1698 = bool(true) && l_12;
if (l_1698) {
const uint32 l_1699 = shared_memory_6[uint32(1)];
const bool l_1700 = threadIdxGlobal < uint32(128);
const uint32 l_1701 = threadIdxGlobal % uint32(32);
const bool l_1702 = l_1701 == uint32(0);
const bool l_1703 = l_1700 && l_1702;
if (l_1703) {
const uint32 l_1704 = l_11 * uint32(4);
const uint32 l_1705 = threadIdxGlobal / uint32(32);
const uint32 l_1706 = l_1704 + l_1705;
const bool l_1707 = l_1706 < info.scalars_uint32[3];
if (l_1707) {
const uint32 l_1708 = info.scalars_uint32[7] + l_1706;
const uint32 l_1709 = l_1699 + l_mut_366;
buffer_2[l_1708] = l_1709;
}
}
const uint32 l_1710 = info.scalars_uint32[4] - uint32(1);
const bool l_1711 = l_11 == l_1710;
const bool l_1712 = threadIdxGlobal == uint32(0);
const bool l_1713 = l_1711 && l_1712;
if (l_1713) {
const uint32 l_1714 = l_1699 + l_mut_697;
const uint32 l_1715 = info.scalars_uint32[7] + info.scalars_uint32[3];
buffer_2[l_1715] = l_1714;
const uint32 l_1716 = l_1714 / uint32(2);
const uint32 l_1717 = info.scalars_uint32[8] + l_1716;
buffer_5[uint32(0)] = l_1717;
buffer_2[uint32(0)] = uint32(1347900227);
buffer_2[uint32(1)] = info.scalars_uint32[9];
buffer_2[uint32(2)] = info.scalars_uint32[0];
buffer_2[uint32(3)] = uint32(0);
buffer_2[uint32(4)] = l_1717;
buffer_2[uint32(5)] = uint32(0);
l_mut_1660 = uint32(2166136261);
const uint32 l_1718 = l_mut_1660 ^ uint32(1347900227);
const uint32 l_1719 = l_1718 * uint32(16777619);
l_mut_1660 = l_1719;
const uint32 l_1720 = l_mut_1660 ^ info.scalars_uint32[9];
const uint32 l_1721 = l_1720 * uint32(16777619);
l_mut_1660 = l_1721;
const uint32 l_1722 = l_mut_1660 ^ info.scalars_uint32[0];
const uint32 l_1723 = l_1722 * uint32(16777619);
l_mut_1660 = l_1723;
const uint32 l_1724 = l_mut_1660 ^ uint32(0);
const uint32 l_1725 = l_1724 * uint32(16777619);
l_mut_1660 = l_1725;
const uint32 l_1726 = l_mut_1660 ^ l_1717;
const uint32 l_1727 = l_1726 * uint32(16777619);
l_mut_1660 = l_1727;
const uint32 l_1728 = l_mut_1660 * uint32(16777619);
l_mut_1660 = l_1728;
buffer_2[uint32(6)] = l_mut_1660;
}
const uint32 l_1729 = l_1699 / uint32(2);
const uint32 l_1730 = info.scalars_uint32[8] + l_1729;
const uint32 l_1731 = l_mut_697 / uint32(2);
const uint32 l_1732 = uint32(0) + threadIdxGlobal;
const bool l_1733 = l_1732 < l_1731;
if (l_1733) {
const uint32 l_1734 = l_1730 + l_1732;
const uint32 l_1735 = uint32(2) * l_1732;
const uint16 l_1736 = shared_memory_4[l_1735];
const uint32 l_1737 = uint32(l_1736);
const uint32 l_1738 = uint32(2) * l_1732;
const uint32 l_1739 = l_1738 + uint32(1);
const uint16 l_1740 = shared_memory_4[l_1739];
const uint32 l_1741 = uint32(l_1740);
const uint32 l_1742 = l_1741 << uint32(16);
const uint32 l_1743 = l_1737 | l_1742;
buffer_2[l_1734] = l_1743;
}
const uint32 l_1744 = uint32(128) + threadIdxGlobal;
const bool l_1745 = l_1744 < l_1731;
if (l_1745) {
const uint32 l_1746 = l_1730 + l_1744;
const uint32 l_1747 = uint32(2) * l_1744;
const uint16 l_1748 = shared_memory_4[l_1747];
const uint32 l_1749 = uint32(l_1748);
const uint32 l_1750 = uint32(2) * l_1744;
const uint32 l_1751 = l_1750 + uint32(1);
const uint16 l_1752 = shared_memory_4[l_1751];
const uint32 l_1753 = uint32(l_1752);
const uint32 l_1754 = l_1753 << uint32(16);
const uint32 l_1755 = l_1749 | l_1754;
buffer_2[l_1746] = l_1755;
}
const uint32 l_1756 = uint32(256) + threadIdxGlobal;
const bool l_1757 = l_1756 < l_1731;
if (l_1757) {
const uint32 l_1758 = l_1730 + l_1756;
const uint32 l_1759 = uint32(2) * l_1756;
const uint16 l_1760 = shared_memory_4[l_1759];
const uint32 l_1761 = uint32(l_1760);
const uint32 l_1762 = uint32(2) * l_1756;
const uint32 l_1763 = l_1762 + uint32(1);
const uint16 l_1764 = shared_memory_4[l_1763];
const uint32 l_1765 = uint32(l_1764);
const uint32 l_1766 = l_1765 << uint32(16);
const uint32 l_1767 = l_1761 | l_1766;
buffer_2[l_1758] = l_1767;
}
const uint32 l_1768 = uint32(384) + threadIdxGlobal;
const bool l_1769 = l_1768 < l_1731;
if (l_1769) {
const uint32 l_1770 = l_1730 + l_1768;
const uint32 l_1771 = uint32(2) * l_1768;
const uint16 l_1772 = shared_memory_4[l_1771];
const uint32 l_1773 = uint32(l_1772);
const uint32 l_1774 = uint32(2) * l_1768;
const uint32 l_1775 = l_1774 + uint32(1);
const uint16 l_1776 = shared_memory_4[l_1775];
const uint32 l_1777 = uint32(l_1776);
const uint32 l_1778 = l_1777 << uint32(16);
const uint32 l_1779 = l_1773 | l_1778;
buffer_2[l_1770] = l_1779;
}
const uint32 l_1780 = uint32(512) + threadIdxGlobal;
const bool l_1781 = l_1780 < l_1731;
if (l_1781) {
const uint32 l_1782 = l_1730 + l_1780;
const uint32 l_1783 = uint32(2) * l_1780;
const uint16 l_1784 = shared_memory_4[l_1783];
const uint32 l_1785 = uint32(l_1784);
const uint32 l_1786 = uint32(2) * l_1780;
const uint32 l_1787 = l_1786 + uint32(1);
const uint16 l_1788 = shared_memory_4[l_1787];
const uint32 l_1789 = uint32(l_1788);
const uint32 l_1790 = l_1789 << uint32(16);
const uint32 l_1791 = l_1785 | l_1790;
buffer_2[l_1782] = l_1791;
}
const uint32 l_1792 = uint32(640) + threadIdxGlobal;
const bool l_1793 = l_1792 < l_1731;
if (l_1793) {
const uint32 l_1794 = l_1730 + l_1792;
const uint32 l_1795 = uint32(2) * l_1792;
const uint16 l_1796 = shared_memory_4[l_1795];
const uint32 l_1797 = uint32(l_1796);
const uint32 l_1798 = uint32(2) * l_1792;
const uint32 l_1799 = l_1798 + uint32(1);
const uint16 l_1800 = shared_memory_4[l_1799];
const uint32 l_1801 = uint32(l_1800);
const uint32 l_1802 = l_1801 << uint32(16);
const uint32 l_1803 = l_1797 | l_1802;
buffer_2[l_1794] = l_1803;
}
const uint32 l_1804 = uint32(768) + threadIdxGlobal;
const bool l_1805 = l_1804 < l_1731;
if (l_1805) {
const uint32 l_1806 = l_1730 + l_1804;
const uint32 l_1807 = uint32(2) * l_1804;
const uint16 l_1808 = shared_memory_4[l_1807];
const uint32 l_1809 = uint32(l_1808);
const uint32 l_1810 = uint32(2) * l_1804;
const uint32 l_1811 = l_1810 + uint32(1);
const uint16 l_1812 = shared_memory_4[l_1811];
const uint32 l_1813 = uint32(l_1812);
const uint32 l_1814 = l_1813 << uint32(16);
const uint32 l_1815 = l_1809 | l_1814;
buffer_2[l_1806] = l_1815;
}
const uint32 l_1816 = uint32(896) + threadIdxGlobal;
const bool l_1817 = l_1816 < l_1731;
if (l_1817) {
const uint32 l_1818 = l_1730 + l_1816;
const uint32 l_1819 = uint32(2) * l_1816;
const uint16 l_1820 = shared_memory_4[l_1819];
const uint32 l_1821 = uint32(l_1820);
const uint32 l_1822 = uint32(2) * l_1816;
const uint32 l_1823 = l_1822 + uint32(1);
const uint16 l_1824 = shared_memory_4[l_1823];
const uint32 l_1825 = uint32(l_1824);
const uint32 l_1826 = l_1825 << uint32(16);
const uint32 l_1827 = l_1821 | l_1826;
buffer_2[l_1818] = l_1827;
}
const uint32 l_1828 = uint32(1024) + threadIdxGlobal;
const bool l_1829 = l_1828 < l_1731;
if (l_1829) {
const uint32 l_1830 = l_1730 + l_1828;
const uint32 l_1831 = uint32(2) * l_1828;
const uint16 l_1832 = shared_memory_4[l_1831];
const uint32 l_1833 = uint32(l_1832);
const uint32 l_1834 = uint32(2) * l_1828;
const uint32 l_1835 = l_1834 + uint32(1);
const uint16 l_1836 = shared_memory_4[l_1835];
const uint32 l_1837 = uint32(l_1836);
const uint32 l_1838 = l_1837 << uint32(16);
const uint32 l_1839 = l_1833 | l_1838;
buffer_2[l_1830] = l_1839;
}
const uint32 l_1840 = uint32(1152) + threadIdxGlobal;
const bool l_1841 = l_1840 < l_1731;
if (l_1841) {
const uint32 l_1842 = l_1730 + l_1840;
const uint32 l_1843 = uint32(2) * l_1840;
const uint16 l_1844 = shared_memory_4[l_1843];
const uint32 l_1845 = uint32(l_1844);
const uint32 l_1846 = uint32(2) * l_1840;
const uint32 l_1847 = l_1846 + uint32(1);
const uint16 l_1848 = shared_memory_4[l_1847];
const uint32 l_1849 = uint32(l_1848);
const uint32 l_1850 = l_1849 << uint32(16);
const uint32 l_1851 = l_1845 | l_1850;
buffer_2[l_1842] = l_1851;
}
const uint32 l_1852 = uint32(1280) + threadIdxGlobal;
const bool l_1853 = l_1852 < l_1731;
if (l_1853) {
const uint32 l_1854 = l_1730 + l_1852;
const uint32 l_1855 = uint32(2) * l_1852;
const uint16 l_1856 = shared_memory_4[l_1855];
const uint32 l_1857 = uint32(l_1856);
const uint32 l_1858 = uint32(2) * l_1852;
const uint32 l_1859 = l_1858 + uint32(1);
const uint16 l_1860 = shared_memory_4[l_1859];
const uint32 l_1861 = uint32(l_1860);
const uint32 l_1862 = l_1861 << uint32(16);
const uint32 l_1863 = l_1857 | l_1862;
buffer_2[l_1854] = l_1863;
}
const uint32 l_1864 = uint32(1408) + threadIdxGlobal;
const bool l_1865 = l_1864 < l_1731;
if (l_1865) {
const uint32 l_1866 = l_1730 + l_1864;
const uint32 l_1867 = uint32(2) * l_1864;
const uint16 l_1868 = shared_memory_4[l_1867];
const uint32 l_1869 = uint32(l_1868);
const uint32 l_1870 = uint32(2) * l_1864;
const uint32 l_1871 = l_1870 + uint32(1);
const uint16 l_1872 = shared_memory_4[l_1871];
const uint32 l_1873 = uint32(l_1872);
const uint32 l_1874 = l_1873 << uint32(16);
const uint32 l_1875 = l_1869 | l_1874;
buffer_2[l_1866] = l_1875;
}
const uint32 l_1876 = uint32(1536) + threadIdxGlobal;
const bool l_1877 = l_1876 < l_1731;
if (l_1877) {
const uint32 l_1878 = l_1730 + l_1876;
const uint32 l_1879 = uint32(2) * l_1876;
const uint16 l_1880 = shared_memory_4[l_1879];
const uint32 l_1881 = uint32(l_1880);
const uint32 l_1882 = uint32(2) * l_1876;
const uint32 l_1883 = l_1882 + uint32(1);
const uint16 l_1884 = shared_memory_4[l_1883];
const uint32 l_1885 = uint32(l_1884);
const uint32 l_1886 = l_1885 << uint32(16);
const uint32 l_1887 = l_1881 | l_1886;
buffer_2[l_1878] = l_1887;
}
const uint32 l_1888 = uint32(1664) + threadIdxGlobal;
const bool l_1889 = l_1888 < l_1731;
if (l_1889) {
const uint32 l_1890 = l_1730 + l_1888;
const uint32 l_1891 = uint32(2) * l_1888;
const uint16 l_1892 = shared_memory_4[l_1891];
const uint32 l_1893 = uint32(l_1892);
const uint32 l_1894 = uint32(2) * l_1888;
const uint32 l_1895 = l_1894 + uint32(1);
const uint16 l_1896 = shared_memory_4[l_1895];
const uint32 l_1897 = uint32(l_1896);
const uint32 l_1898 = l_1897 << uint32(16);
const uint32 l_1899 = l_1893 | l_1898;
buffer_2[l_1890] = l_1899;
}
const uint32 l_1900 = uint32(1792) + threadIdxGlobal;
const bool l_1901 = l_1900 < l_1731;
if (l_1901) {
const uint32 l_1902 = l_1730 + l_1900;
const uint32 l_1903 = uint32(2) * l_1900;
const uint16 l_1904 = shared_memory_4[l_1903];
const uint32 l_1905 = uint32(l_1904);
const uint32 l_1906 = uint32(2) * l_1900;
const uint32 l_1907 = l_1906 + uint32(1);
const uint16 l_1908 = shared_memory_4[l_1907];
const uint32 l_1909 = uint32(l_1908);
const uint32 l_1910 = l_1909 << uint32(16);
const uint32 l_1911 = l_1905 | l_1910;
buffer_2[l_1902] = l_1911;
}
const uint32 l_1912 = uint32(1920) + threadIdxGlobal;
const bool l_1913 = l_1912 < l_1731;
if (l_1913) {
const uint32 l_1914 = l_1730 + l_1912;
const uint32 l_1915 = uint32(2) * l_1912;
const uint16 l_1916 = shared_memory_4[l_1915];
const uint32 l_1917 = uint32(l_1916);
const uint32 l_1918 = uint32(2) * l_1912;
const uint32 l_1919 = l_1918 + uint32(1);
const uint16 l_1920 = shared_memory_4[l_1919];
const uint32 l_1921 = uint32(l_1920);
const uint32 l_1922 = l_1921 << uint32(16);
const uint32 l_1923 = l_1917 | l_1922;
buffer_2[l_1914] = l_1923;
}
const uint32 l_1924 = uint32(2048) + threadIdxGlobal;
const bool l_1925 = l_1924 < l_1731;
if (l_1925) {
const uint32 l_1926 = l_1730 + l_1924;
const uint32 l_1927 = uint32(2) * l_1924;
const uint16 l_1928 = shared_memory_4[l_1927];
const uint32 l_1929 = uint32(l_1928);
const uint32 l_1930 = uint32(2) * l_1924;
const uint32 l_1931 = l_1930 + uint32(1);
const uint16 l_1932 = shared_memory_4[l_1931];
const uint32 l_1933 = uint32(l_1932);
const uint32 l_1934 = l_1933 << uint32(16);
const uint32 l_1935 = l_1929 | l_1934;
buffer_2[l_1926] = l_1935;
}
const uint32 l_1936 = uint32(2176) + threadIdxGlobal;
const bool l_1937 = l_1936 < l_1731;
if (l_1937) {
const uint32 l_1938 = l_1730 + l_1936;
const uint32 l_1939 = uint32(2) * l_1936;
const uint16 l_1940 = shared_memory_4[l_1939];
const uint32 l_1941 = uint32(l_1940);
const uint32 l_1942 = uint32(2) * l_1936;
const uint32 l_1943 = l_1942 + uint32(1);
const uint16 l_1944 = shared_memory_4[l_1943];
const uint32 l_1945 = uint32(l_1944);
const uint32 l_1946 = l_1945 << uint32(16);
const uint32 l_1947 = l_1941 | l_1946;
buffer_2[l_1938] = l_1947;
}
const uint32 l_1948 = uint32(2304) + threadIdxGlobal;
const bool l_1949 = l_1948 < l_1731;
if (l_1949) {
const uint32 l_1950 = l_1730 + l_1948;
const uint32 l_1951 = uint32(2) * l_1948;
const uint16 l_1952 = shared_memory_4[l_1951];
const uint32 l_1953 = uint32(l_1952);
const uint32 l_1954 = uint32(2) * l_1948;
const uint32 l_1955 = l_1954 + uint32(1);
const uint16 l_1956 = shared_memory_4[l_1955];
const uint32 l_1957 = uint32(l_1956);
const uint32 l_1958 = l_1957 << uint32(16);
const uint32 l_1959 = l_1953 | l_1958;
buffer_2[l_1950] = l_1959;
}
const uint32 l_1960 = uint32(2432) + threadIdxGlobal;
const bool l_1961 = l_1960 < l_1731;
if (l_1961) {
const uint32 l_1962 = l_1730 + l_1960;
const uint32 l_1963 = uint32(2) * l_1960;
const uint16 l_1964 = shared_memory_4[l_1963];
const uint32 l_1965 = uint32(l_1964);
const uint32 l_1966 = uint32(2) * l_1960;
const uint32 l_1967 = l_1966 + uint32(1);
const uint16 l_1968 = shared_memory_4[l_1967];
const uint32 l_1969 = uint32(l_1968);
const uint32 l_1970 = l_1969 << uint32(16);
const uint32 l_1971 = l_1965 | l_1970;
buffer_2[l_1962] = l_1971;
}
const uint32 l_1972 = uint32(2560) + threadIdxGlobal;
const bool l_1973 = l_1972 < l_1731;
if (l_1973) {
const uint32 l_1974 = l_1730 + l_1972;
const uint32 l_1975 = uint32(2) * l_1972;
const uint16 l_1976 = shared_memory_4[l_1975];
const uint32 l_1977 = uint32(l_1976);
const uint32 l_1978 = uint32(2) * l_1972;
const uint32 l_1979 = l_1978 + uint32(1);
const uint16 l_1980 = shared_memory_4[l_1979];
const uint32 l_1981 = uint32(l_1980);
const uint32 l_1982 = l_1981 << uint32(16);
const uint32 l_1983 = l_1977 | l_1982;
buffer_2[l_1974] = l_1983;
}
const uint32 l_1984 = uint32(2688) + threadIdxGlobal;
const bool l_1985 = l_1984 < l_1731;
if (l_1985) {
const uint32 l_1986 = l_1730 + l_1984;
const uint32 l_1987 = uint32(2) * l_1984;
const uint16 l_1988 = shared_memory_4[l_1987];
const uint32 l_1989 = uint32(l_1988);
const uint32 l_1990 = uint32(2) * l_1984;
const uint32 l_1991 = l_1990 + uint32(1);
const uint16 l_1992 = shared_memory_4[l_1991];
const uint32 l_1993 = uint32(l_1992);
const uint32 l_1994 = l_1993 << uint32(16);
const uint32 l_1995 = l_1989 | l_1994;
buffer_2[l_1986] = l_1995;
}
const uint32 l_1996 = uint32(2816) + threadIdxGlobal;
const bool l_1997 = l_1996 < l_1731;
if (l_1997) {
const uint32 l_1998 = l_1730 + l_1996;
const uint32 l_1999 = uint32(2) * l_1996;
const uint16 l_2000 = shared_memory_4[l_1999];
const uint32 l_2001 = uint32(l_2000);
const uint32 l_2002 = uint32(2) * l_1996;
const uint32 l_2003 = l_2002 + uint32(1);
const uint16 l_2004 = shared_memory_4[l_2003];
const uint32 l_2005 = uint32(l_2004);
const uint32 l_2006 = l_2005 << uint32(16);
const uint32 l_2007 = l_2001 | l_2006;
buffer_2[l_1998] = l_2007;
}
const uint32 l_2008 = uint32(2944) + threadIdxGlobal;
const bool l_2009 = l_2008 < l_1731;
if (l_2009) {
const uint32 l_2010 = l_1730 + l_2008;
const uint32 l_2011 = uint32(2) * l_2008;
const uint16 l_2012 = shared_memory_4[l_2011];
const uint32 l_2013 = uint32(l_2012);
const uint32 l_2014 = uint32(2) * l_2008;
const uint32 l_2015 = l_2014 + uint32(1);
const uint16 l_2016 = shared_memory_4[l_2015];
const uint32 l_2017 = uint32(l_2016);
const uint32 l_2018 = l_2017 << uint32(16);
const uint32 l_2019 = l_2013 | l_2018;
buffer_2[l_2010] = l_2019;
}
const uint32 l_2020 = uint32(3072) + threadIdxGlobal;
const bool l_2021 = l_2020 < l_1731;
if (l_2021) {
const uint32 l_2022 = l_1730 + l_2020;
const uint32 l_2023 = uint32(2) * l_2020;
const uint16 l_2024 = shared_memory_4[l_2023];
const uint32 l_2025 = uint32(l_2024);
const uint32 l_2026 = uint32(2) * l_2020;
const uint32 l_2027 = l_2026 + uint32(1);
const uint16 l_2028 = shared_memory_4[l_2027];
const uint32 l_2029 = uint32(l_2028);
const uint32 l_2030 = l_2029 << uint32(16);
const uint32 l_2031 = l_2025 | l_2030;
buffer_2[l_2022] = l_2031;
}
const uint32 l_2032 = uint32(3200) + threadIdxGlobal;
const bool l_2033 = l_2032 < l_1731;
if (l_2033) {
const uint32 l_2034 = l_1730 + l_2032;
const uint32 l_2035 = uint32(2) * l_2032;
const uint16 l_2036 = shared_memory_4[l_2035];
const uint32 l_2037 = uint32(l_2036);
const uint32 l_2038 = uint32(2) * l_2032;
const uint32 l_2039 = l_2038 + uint32(1);
const uint16 l_2040 = shared_memory_4[l_2039];
const uint32 l_2041 = uint32(l_2040);
const uint32 l_2042 = l_2041 << uint32(16);
const uint32 l_2043 = l_2037 | l_2042;
buffer_2[l_2034] = l_2043;
}
const uint32 l_2044 = uint32(3328) + threadIdxGlobal;
const bool l_2045 = l_2044 < l_1731;
if (l_2045) {
const uint32 l_2046 = l_1730 + l_2044;
const uint32 l_2047 = uint32(2) * l_2044;
const uint16 l_2048 = shared_memory_4[l_2047];
const uint32 l_2049 = uint32(l_2048);
const uint32 l_2050 = uint32(2) * l_2044;
const uint32 l_2051 = l_2050 + uint32(1);
const uint16 l_2052 = shared_memory_4[l_2051];
const uint32 l_2053 = uint32(l_2052);
const uint32 l_2054 = l_2053 << uint32(16);
const uint32 l_2055 = l_2049 | l_2054;
buffer_2[l_2046] = l_2055;
}
const uint32 l_2056 = uint32(3456) + threadIdxGlobal;
const bool l_2057 = l_2056 < l_1731;
if (l_2057) {
const uint32 l_2058 = l_1730 + l_2056;
const uint32 l_2059 = uint32(2) * l_2056;
const uint16 l_2060 = shared_memory_4[l_2059];
const uint32 l_2061 = uint32(l_2060);
const uint32 l_2062 = uint32(2) * l_2056;
const uint32 l_2063 = l_2062 + uint32(1);
const uint16 l_2064 = shared_memory_4[l_2063];
const uint32 l_2065 = uint32(l_2064);
const uint32 l_2066 = l_2065 << uint32(16);
const uint32 l_2067 = l_2061 | l_2066;
buffer_2[l_2058] = l_2067;
}
const uint32 l_2068 = uint32(3584) + threadIdxGlobal;
const bool l_2069 = l_2068 < l_1731;
if (l_2069) {
const uint32 l_2070 = l_1730 + l_2068;
const uint32 l_2071 = uint32(2) * l_2068;
const uint16 l_2072 = shared_memory_4[l_2071];
const uint32 l_2073 = uint32(l_2072);
const uint32 l_2074 = uint32(2) * l_2068;
const uint32 l_2075 = l_2074 + uint32(1);
const uint16 l_2076 = shared_memory_4[l_2075];
const uint32 l_2077 = uint32(l_2076);
const uint32 l_2078 = l_2077 << uint32(16);
const uint32 l_2079 = l_2073 | l_2078;
buffer_2[l_2070] = l_2079;
}
const uint32 l_2080 = uint32(3712) + threadIdxGlobal;
const bool l_2081 = l_2080 < l_1731;
if (l_2081) {
const uint32 l_2082 = l_1730 + l_2080;
const uint32 l_2083 = uint32(2) * l_2080;
const uint16 l_2084 = shared_memory_4[l_2083];
const uint32 l_2085 = uint32(l_2084);
const uint32 l_2086 = uint32(2) * l_2080;
const uint32 l_2087 = l_2086 + uint32(1);
const uint16 l_2088 = shared_memory_4[l_2087];
const uint32 l_2089 = uint32(l_2088);
const uint32 l_2090 = l_2089 << uint32(16);
const uint32 l_2091 = l_2085 | l_2090;
buffer_2[l_2082] = l_2091;
}
const uint32 l_2092 = uint32(3840) + threadIdxGlobal;
const bool l_2093 = l_2092 < l_1731;
if (l_2093) {
const uint32 l_2094 = l_1730 + l_2092;
const uint32 l_2095 = uint32(2) * l_2092;
const uint16 l_2096 = shared_memory_4[l_2095];
const uint32 l_2097 = uint32(l_2096);
const uint32 l_2098 = uint32(2) * l_2092;
const uint32 l_2099 = l_2098 + uint32(1);
const uint16 l_2100 = shared_memory_4[l_2099];
const uint32 l_2101 = uint32(l_2100);
const uint32 l_2102 = l_2101 << uint32(16);
const uint32 l_2103 = l_2097 | l_2102;
buffer_2[l_2094] = l_2103;
}
const uint32 l_2104 = uint32(3968) + threadIdxGlobal;
const bool l_2105 = l_2104 < l_1731;
if (l_2105) {
const uint32 l_2106 = l_1730 + l_2104;
const uint32 l_2107 = uint32(2) * l_2104;
const uint16 l_2108 = shared_memory_4[l_2107];
const uint32 l_2109 = uint32(l_2108);
const uint32 l_2110 = uint32(2) * l_2104;
const uint32 l_2111 = l_2110 + uint32(1);
const uint16 l_2112 = shared_memory_4[l_2111];
const uint32 l_2113 = uint32(l_2112);
const uint32 l_2114 = l_2113 << uint32(16);
const uint32 l_2115 = l_2109 | l_2114;
buffer_2[l_2106] = l_2115;
}
}
__syncthreads();

}
l_mut_1660 = uint32(0);
__syncthreads();

auto plane_l_2116 = [&]() -> uint32 {
    uint32 acc = l_mut_0;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const uint32 l_2116 = plane_l_2116();
const bool l_2117 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_2117) {
const uint32 l_2118 = threadIdxGlobal / warpSize;
shared_memory_5[l_2118] = l_2116;
}
__syncthreads();

const bool l_2119 = threadIdxGlobal < warpSize;
if (l_2119) {
const uint32 l_2120 = uint32(128) + warpSize;
const uint32 l_2121 = l_2120 - uint32(1);
const uint32 l_2122 = l_2121 / warpSize;
l_mut_1658 = uint32(0);
l_mut_1059 = threadIdxGlobal;
while (true) {
const bool l_2123 = l_mut_1059 < l_2122;
const bool l_2124 = !l_2123;
if (l_2124) {
break;}
const uint32 l_2125 = shared_memory_5[l_mut_1059];
l_mut_1658 = l_mut_1658 + l_2125;
l_mut_1059 = l_mut_1059 + warpSize;
}
auto plane_l_2126 = [&]() -> uint32 {
    uint32 acc = l_mut_1658;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const uint32 l_2126 = plane_l_2126();
l_mut_1660 = l_2126;
}
const uint32 l_2127 = blockIdxGlobal * uint32(128);
const uint32 l_2128 = l_2127 + threadIdxGlobal;
const bool l_2129 = l_2128 < info.scalars_uint32[10];
if (l_2129) {
buffer_6[l_2128] = uint32(0);
}
const bool l_2130 = threadIdxGlobal == uint32(0);
if (l_2130) {
const uint64 l_2131 = uint64(l_mut_1660);
const uint64 l_2132 = l_2131 << uint64(32);
const uint64 l_2133 = l_2132 + uint64(1);
uint64* l_2134 = &buffer_4[uint32(0)];
const uint64 l_2135 = atomicAdd(l_2134, l_2133);
const uint64 l_2136 = l_2135 + l_2133;
const uint32 l_2137 = uint32(l_2136);
const bool l_2138 = l_2137 == gridDimGlobal;
if (l_2138) {
const uint64 l_2139 = l_2136 >> uint64(32);
const uint32 l_2140 = uint32(l_2139);
buffer_2[uint32(7)] = l_2140;
}
}

}
