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
// Shared array size: 4224, 16896 bytes
uint32 *shared_memory_3 = reinterpret_cast<uint32*>(&dynamic_shared_mem[17424]);
// Shared array size: 8192, 16384 bytes
uint16 *shared_memory_4 = reinterpret_cast<uint16*>(&dynamic_shared_mem[1040]);
// Shared array size: 4, 16 bytes
uint32 *shared_memory_6 = reinterpret_cast<uint32*>(&dynamic_shared_mem[1024]);
// Shared array size: 256, 1024 bytes
uint32 *shared_memory_5 = reinterpret_cast<uint32*>(&dynamic_shared_mem[0]);
uint32_4 l_arr_16[4];

uint32_4 l_arr_190[4];

uint32 l_mut_0;
uint32 l_mut_366;
uint32 l_mut_697;
uint32 l_mut_698;
uint32 l_mut_699;
uint32 l_mut_708;
uint32 l_mut_709;
uint32 l_mut_710;
uint32 l_mut_746;
uint32 l_mut_901;
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
const uint32 l_701 = threadIdxGlobal / uint32(32);
const uint32 l_702 = l_701 * uint32(1024);
const bool l_703 = l_701 < uint32(4);
const bool l_704 = l_12 && l_703;
if (l_704) {
const uint32 l_705 = l_11 * uint32(4096);
const uint32 l_706 = l_705 + l_702;
const uint32 l_707 = threadIdxGlobal % uint32(32);
l_mut_708 = uint32(0);
l_mut_709 = uint32(0);
l_mut_710 = uint32(0);

for (uint32 l_mut_711 = uint32(0); l_mut_711 < info.scalars_uint32[11]; ++l_mut_711) {
const uint32 l_712 = l_mut_711 * uint32(32);
const uint32 l_713 = l_702 + l_712;
const uint32 l_714 = l_713 + l_707;
const uint32 l_715 = l_714 / uint32(32);
const uint32 l_716 = l_714 + l_715;
const uint32 l_717 = shared_memory_3[l_716];
const uint32 l_718 = l_mut_711 * uint32(32);
const uint32 l_719 = l_706 + l_718;
const uint32 l_720 = l_719 + l_707;
const uint32 l_721 = uint32(2) * l_720;
const uint32 l_722 = l_717 & uint32(65535);
const bool l_723 = l_722 != uint32(0);
const bool l_724 = l_721 < info.scalars_uint32[0];
const bool l_725 = l_723 && l_724;
const uint32 l_726 = l_717 >> uint32(16);
const bool l_727 = l_726 != uint32(0);
const uint32 l_728 = l_721 + uint32(1);
const bool l_729 = l_728 < info.scalars_uint32[0];
const bool l_730 = l_727 && l_729;

const uint32_4 l_731 = { __ballot_sync(-1, l_725), 0, 0, 0 };
const uint32 l_732 = l_731.i_0;

const uint32_4 l_733 = { __ballot_sync(-1, l_730), 0, 0, 0 };
const uint32 l_734 = l_733.i_0;
const uint32 l_735 = uint32(__popc(l_732));
const uint32 l_736 = uint32(__popc(l_734));
const uint32 l_737 = l_735 + l_736;
l_mut_708 = l_mut_708 + l_737;
const bool l_738 = l_mut_711 == l_707;
if (l_738) {
l_mut_709 = l_732;
l_mut_710 = l_734;
}
}
const uint32 l_739 = l_706 / uint32(16);
const uint32 l_740 = uint32(2) * l_707;
const uint32 l_741 = l_739 + l_740;
const bool l_742 = l_741 < l_2;
if (l_742) {
const uint32 l_743 = info.scalars_uint32[6] + l_741;
const uint32 l_744 = l_mut_709 & uint32(65535);
const uint32 l_745 = l_744 & uint32(65535);
l_mut_746 = l_745;
const uint32 l_747 = l_mut_746 << uint32(8);
const uint32 l_748 = l_mut_746 | l_747;
const uint32 l_749 = l_748 & uint32(16711935);
l_mut_746 = l_749;
const uint32 l_750 = l_mut_746 << uint32(4);
const uint32 l_751 = l_mut_746 | l_750;
const uint32 l_752 = l_751 & uint32(252645135);
l_mut_746 = l_752;
const uint32 l_753 = l_mut_746 << uint32(2);
const uint32 l_754 = l_mut_746 | l_753;
const uint32 l_755 = l_754 & uint32(858993459);
l_mut_746 = l_755;
const uint32 l_756 = l_mut_746 << uint32(1);
const uint32 l_757 = l_mut_746 | l_756;
const uint32 l_758 = l_757 & uint32(1431655765);
const uint32 l_759 = l_mut_710 & uint32(65535);
const uint32 l_760 = l_759 & uint32(65535);
l_mut_746 = l_760;
const uint32 l_761 = l_mut_746 << uint32(8);
const uint32 l_762 = l_mut_746 | l_761;
const uint32 l_763 = l_762 & uint32(16711935);
l_mut_746 = l_763;
const uint32 l_764 = l_mut_746 << uint32(4);
const uint32 l_765 = l_mut_746 | l_764;
const uint32 l_766 = l_765 & uint32(252645135);
l_mut_746 = l_766;
const uint32 l_767 = l_mut_746 << uint32(2);
const uint32 l_768 = l_mut_746 | l_767;
const uint32 l_769 = l_768 & uint32(858993459);
l_mut_746 = l_769;
const uint32 l_770 = l_mut_746 << uint32(1);
const uint32 l_771 = l_mut_746 | l_770;
const uint32 l_772 = l_771 & uint32(1431655765);
const uint32 l_773 = l_772 << uint32(1);
const uint32 l_774 = l_758 | l_773;
buffer_2[l_743] = l_774;
}
const uint32 l_775 = l_741 + uint32(1);
const bool l_776 = l_775 < l_2;
if (l_776) {
const uint32 l_777 = info.scalars_uint32[6] + l_741;
const uint32 l_778 = l_777 + uint32(1);
const uint32 l_779 = l_mut_709 >> uint32(16);
const uint32 l_780 = l_779 & uint32(65535);
l_mut_746 = l_780;
const uint32 l_781 = l_mut_746 << uint32(8);
const uint32 l_782 = l_mut_746 | l_781;
const uint32 l_783 = l_782 & uint32(16711935);
l_mut_746 = l_783;
const uint32 l_784 = l_mut_746 << uint32(4);
const uint32 l_785 = l_mut_746 | l_784;
const uint32 l_786 = l_785 & uint32(252645135);
l_mut_746 = l_786;
const uint32 l_787 = l_mut_746 << uint32(2);
const uint32 l_788 = l_mut_746 | l_787;
const uint32 l_789 = l_788 & uint32(858993459);
l_mut_746 = l_789;
const uint32 l_790 = l_mut_746 << uint32(1);
const uint32 l_791 = l_mut_746 | l_790;
const uint32 l_792 = l_791 & uint32(1431655765);
const uint32 l_793 = l_mut_710 >> uint32(16);
const uint32 l_794 = l_793 & uint32(65535);
l_mut_746 = l_794;
const uint32 l_795 = l_mut_746 << uint32(8);
const uint32 l_796 = l_mut_746 | l_795;
const uint32 l_797 = l_796 & uint32(16711935);
l_mut_746 = l_797;
const uint32 l_798 = l_mut_746 << uint32(4);
const uint32 l_799 = l_mut_746 | l_798;
const uint32 l_800 = l_799 & uint32(252645135);
l_mut_746 = l_800;
const uint32 l_801 = l_mut_746 << uint32(2);
const uint32 l_802 = l_mut_746 | l_801;
const uint32 l_803 = l_802 & uint32(858993459);
l_mut_746 = l_803;
const uint32 l_804 = l_mut_746 << uint32(1);
const uint32 l_805 = l_mut_746 | l_804;
const uint32 l_806 = l_805 & uint32(1431655765);
const uint32 l_807 = l_806 << uint32(1);
const uint32 l_808 = l_792 | l_807;
buffer_2[l_778] = l_808;
}
const bool l_809 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_809) {
const uint32 l_810 = l_mut_708 & uint32(1);
const uint32 l_811 = l_mut_708 + l_810;
shared_memory_5[l_701] = l_811;
}
}
__syncthreads();

const uint32 l_812 = shared_memory_5[uint32(0)];
const bool l_813 = uint32(0) < l_701;
if (l_813) {
l_mut_366 = l_mut_366 + l_812;
}
l_mut_697 = l_mut_697 + l_812;
const uint32 l_814 = shared_memory_5[uint32(1)];
const bool l_815 = uint32(1) < l_701;
if (l_815) {
l_mut_366 = l_mut_366 + l_814;
}
l_mut_697 = l_mut_697 + l_814;
const uint32 l_816 = shared_memory_5[uint32(2)];
const bool l_817 = uint32(2) < l_701;
if (l_817) {
l_mut_366 = l_mut_366 + l_816;
}
l_mut_697 = l_mut_697 + l_816;
const uint32 l_818 = shared_memory_5[uint32(3)];
const bool l_819 = uint32(3) < l_701;
if (l_819) {
l_mut_366 = l_mut_366 + l_818;
}
l_mut_697 = l_mut_697 + l_818;
const bool l_820 = threadIdxGlobal == uint32(0);
const bool l_821 = l_12 && l_820;
const bool l_822 = l_11 > uint32(0);
const bool l_823 = l_821 && l_822;
if (l_823) {
const uint32 l_824 = uint32(1073741824) | l_mut_697;
const uint32 l_825 = uint32(1) + l_11;
uint32* l_826 = &buffer_3[l_825];
uint32 _tmp_0 = atomicExch(l_826, l_824);
}
const uint32 l_827 = threadIdxGlobal / uint32(32);
const uint32 l_828 = l_827 * uint32(1024);
const bool l_829 = l_827 < uint32(4);
const bool l_830 = l_12 && l_829;
if (l_830) {
const uint32 l_831 = l_11 * uint32(4096);
const uint32 l_832 = l_831 + l_828;
const uint32 l_833 = threadIdxGlobal % uint32(32);
const uint32 l_834 = uint32(1) << l_833;
const uint32 l_835 = l_834 - uint32(1);
l_mut_746 = l_mut_366;

for (uint32 l_mut_836 = uint32(0); l_mut_836 < info.scalars_uint32[11]; ++l_mut_836) {
const uint32 l_837 = l_mut_836 * uint32(32);
const uint32 l_838 = l_828 + l_837;
const uint32 l_839 = l_838 + l_833;
const uint32 l_840 = l_839 / uint32(32);
const uint32 l_841 = l_839 + l_840;
const uint32 l_842 = shared_memory_3[l_841];
const uint32 l_843 = l_mut_836 * uint32(32);
const uint32 l_844 = l_832 + l_843;
const uint32 l_845 = l_844 + l_833;
const uint32 l_846 = uint32(2) * l_845;
const uint32 l_847 = l_842 & uint32(65535);
const bool l_848 = l_847 != uint32(0);
const bool l_849 = l_846 < info.scalars_uint32[0];
const bool l_850 = l_848 && l_849;
const uint32 l_851 = l_842 >> uint32(16);
const bool l_852 = l_851 != uint32(0);
const uint32 l_853 = l_846 + uint32(1);
const bool l_854 = l_853 < info.scalars_uint32[0];
const bool l_855 = l_852 && l_854;

const uint32_4 l_856 = { __ballot_sync(-1, l_850), 0, 0, 0 };
const uint32 l_857 = l_856.i_0;

const uint32_4 l_858 = { __ballot_sync(-1, l_855), 0, 0, 0 };
const uint32 l_859 = l_858.i_0;
const uint32 l_860 = l_857 & l_835;
const uint32 l_861 = uint32(__popc(l_860));
const uint32 l_862 = l_mut_746 + l_861;
const uint32 l_863 = l_859 & l_835;
const uint32 l_864 = uint32(__popc(l_863));
const uint32 l_865 = l_862 + l_864;
l_mut_710 = l_865;
if (l_850) {
const uint32 l_866 = l_842 & uint32(65535);
const uint16 l_867 = uint16(l_866);
shared_memory_4[l_mut_710] = l_867;
l_mut_710 = l_mut_710 + uint32(1);
}
if (l_855) {
const uint32 l_868 = l_842 >> uint32(16);
const uint16 l_869 = uint16(l_868);
shared_memory_4[l_mut_710] = l_869;
}
const uint32 l_870 = uint32(__popc(l_857));
const uint32 l_871 = uint32(__popc(l_859));
const uint32 l_872 = l_870 + l_871;
l_mut_746 = l_mut_746 + l_872;
}
const bool l_873 = l_833 == uint32(0);
const uint32 l_874 = l_mut_746 - l_mut_366;
const uint32 l_875 = l_874 % uint32(2);
const bool l_876 = l_875 == uint32(1);
const bool l_877 = l_873 && l_876;
if (l_877) {
const uint16 l_878 = uint16(uint32(0));
shared_memory_4[l_mut_746] = l_878;
}
}
const bool l_879 = threadIdxGlobal < warpSize;
const bool l_880 = l_12 && l_879;
if (l_880) {
const bool l_881 = l_11 == uint32(0);
if (l_881) {
const bool l_882 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_882) {
const uint32 l_883 = uint32(2147483648) | l_mut_697;
uint32* l_884 = &buffer_3[uint32(1)];
uint32 _tmp_1 = atomicExch(l_884, l_883);
shared_memory_6[uint32(1)] = uint32(0);
}
} else {
l_mut_746 = uint32(0);
l_mut_710 = l_11;
l_mut_18 = bool(false);
while (true) {
const bool l_885 = !l_mut_18;
const bool l_886 = !l_885;
if (l_886) {
break;}
l_mut_709 = uint32(2147483648);
const bool l_887 = l_mut_710 > uint32(idxGlobal) % warpSize;
if (l_887) {
const uint32 l_888 = l_mut_710 - uint32(idxGlobal) % warpSize;
uint32* l_889 = &buffer_3[l_888];
const uint32 l_890 = atomicAdd(l_889, uint32(0));
l_mut_709 = l_890;
}
while (true) {
const bool l_891 = l_mut_709 >= uint32(1073741824);
const bool l_892 = { __all_sync(-1, l_891)};
const bool l_893 = !l_892;
const bool l_894 = !l_893;
if (l_894) {
break;}
const bool l_895 = l_mut_709 < uint32(1073741824);
if (l_895) {
const uint32 l_896 = l_mut_710 - uint32(idxGlobal) % warpSize;
uint32* l_897 = &buffer_3[l_896];
const uint32 l_898 = atomicAdd(l_897, uint32(0));
l_mut_709 = l_898;
}
}
const bool l_899 = l_mut_709 >= uint32(2147483648);
l_mut_708 = uint32(4294967295);
if (l_899) {
l_mut_708 = uint32(idxGlobal) % warpSize;
}

const uint32_4 l_900 = { __ballot_sync(-1, l_899), 0, 0, 0 };
l_mut_901 = uint32(4294967295);
const uint32 l_902 = l_900.i_0;
const bool l_903 = l_mut_901 == uint32(4294967295);
const bool l_904 = l_902 != uint32(0);
const bool l_905 = l_903 && l_904;
if (l_905) {
const uint32 l_906 = uint32(__ffs(int32(l_902)));
const uint32 l_907 = uint32(0) + l_906;
const uint32 l_908 = l_907 - uint32(1);
l_mut_901 = l_908;
}
const uint32 l_909 = l_900.i_1;
const bool l_910 = l_mut_901 == uint32(4294967295);
const bool l_911 = l_909 != uint32(0);
const bool l_912 = l_910 && l_911;
if (l_912) {
const uint32 l_913 = uint32(__ffs(int32(l_909)));
const uint32 l_914 = uint32(32) + l_913;
const uint32 l_915 = l_914 - uint32(1);
l_mut_901 = l_915;
}
const uint32 l_916 = l_900.i_2;
const bool l_917 = l_mut_901 == uint32(4294967295);
const bool l_918 = l_916 != uint32(0);
const bool l_919 = l_917 && l_918;
if (l_919) {
const uint32 l_920 = uint32(__ffs(int32(l_916)));
const uint32 l_921 = uint32(64) + l_920;
const uint32 l_922 = l_921 - uint32(1);
l_mut_901 = l_922;
}
const uint32 l_923 = l_900.i_3;
const bool l_924 = l_mut_901 == uint32(4294967295);
const bool l_925 = l_923 != uint32(0);
const bool l_926 = l_924 && l_925;
if (l_926) {
const uint32 l_927 = uint32(__ffs(int32(l_923)));
const uint32 l_928 = uint32(96) + l_927;
const uint32 l_929 = l_928 - uint32(1);
l_mut_901 = l_929;
}
l_mut_708 = l_mut_901;
const bool l_930 = uint32(idxGlobal) % warpSize <= l_mut_708;
if (l_930) {
const uint32 l_931 = l_mut_709 & uint32(1073741823);
l_mut_746 = l_mut_746 + l_931;
}
const bool l_932 = l_mut_708 != uint32(4294967295);
if (l_932) {
l_mut_18 = bool(true);
} else {
l_mut_710 = l_mut_710 - warpSize;
}
}
auto plane_l_933 = [&]() -> uint32 {
    uint32 acc = l_mut_746;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const uint32 l_933 = plane_l_933();
const bool l_934 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_934) {
const uint32 l_935 = l_933 + l_mut_697;
const uint32 l_936 = uint32(2147483648) | l_935;
const uint32 l_937 = uint32(1) + l_11;
uint32* l_938 = &buffer_3[l_937];
uint32 _tmp_2 = atomicExch(l_938, l_936);
shared_memory_6[uint32(1)] = l_933;
}
}
}
__syncthreads();

const bool l_939 = bool(true) && l_12;
if (l_939) {
const uint32 l_940 = shared_memory_6[uint32(1)];
const bool l_941 = threadIdxGlobal < uint32(128);
const uint32 l_942 = threadIdxGlobal % uint32(32);
const bool l_943 = l_942 == uint32(0);
const bool l_944 = l_941 && l_943;
if (l_944) {
const uint32 l_945 = l_11 * uint32(4);
const uint32 l_946 = threadIdxGlobal / uint32(32);
const uint32 l_947 = l_945 + l_946;
const bool l_948 = l_947 < info.scalars_uint32[3];
if (l_948) {
const uint32 l_949 = info.scalars_uint32[7] + l_947;
const uint32 l_950 = l_940 + l_mut_366;
buffer_2[l_949] = l_950;
}
}
const uint32 l_951 = info.scalars_uint32[4] - uint32(1);
const bool l_952 = l_11 == l_951;
const bool l_953 = threadIdxGlobal == uint32(0);
const bool l_954 = l_952 && l_953;
if (l_954) {
const uint32 l_955 = l_940 + l_mut_697;
const uint32 l_956 = info.scalars_uint32[7] + info.scalars_uint32[3];
buffer_2[l_956] = l_955;
const uint32 l_957 = l_955 / uint32(2);
const uint32 l_958 = info.scalars_uint32[8] + l_957;
buffer_5[uint32(0)] = l_958;
buffer_2[uint32(0)] = uint32(1347900227);
buffer_2[uint32(1)] = info.scalars_uint32[9];
buffer_2[uint32(2)] = info.scalars_uint32[0];
buffer_2[uint32(3)] = uint32(0);
buffer_2[uint32(4)] = l_958;
buffer_2[uint32(5)] = uint32(0);
l_mut_901 = uint32(2166136261);
const uint32 l_959 = l_mut_901 ^ uint32(1347900227);
const uint32 l_960 = l_959 * uint32(16777619);
l_mut_901 = l_960;
const uint32 l_961 = l_mut_901 ^ info.scalars_uint32[9];
const uint32 l_962 = l_961 * uint32(16777619);
l_mut_901 = l_962;
const uint32 l_963 = l_mut_901 ^ info.scalars_uint32[0];
const uint32 l_964 = l_963 * uint32(16777619);
l_mut_901 = l_964;
const uint32 l_965 = l_mut_901 ^ uint32(0);
const uint32 l_966 = l_965 * uint32(16777619);
l_mut_901 = l_966;
const uint32 l_967 = l_mut_901 ^ l_958;
const uint32 l_968 = l_967 * uint32(16777619);
l_mut_901 = l_968;
const uint32 l_969 = l_mut_901 * uint32(16777619);
l_mut_901 = l_969;
buffer_2[uint32(6)] = l_mut_901;
}
const uint32 l_970 = l_940 / uint32(2);
const uint32 l_971 = info.scalars_uint32[8] + l_970;
const uint32 l_972 = l_mut_697 / uint32(2);
const uint32 l_973 = uint32(0) + threadIdxGlobal;
const bool l_974 = l_973 < l_972;
if (l_974) {
const uint32 l_975 = l_971 + l_973;
const uint32 l_976 = uint32(2) * l_973;
const uint16 l_977 = shared_memory_4[l_976];
const uint32 l_978 = uint32(l_977);
const uint32 l_979 = uint32(2) * l_973;
const uint32 l_980 = l_979 + uint32(1);
const uint16 l_981 = shared_memory_4[l_980];
const uint32 l_982 = uint32(l_981);
const uint32 l_983 = l_982 << uint32(16);
const uint32 l_984 = l_978 | l_983;
buffer_2[l_975] = l_984;
}
const uint32 l_985 = uint32(128) + threadIdxGlobal;
const bool l_986 = l_985 < l_972;
if (l_986) {
const uint32 l_987 = l_971 + l_985;
const uint32 l_988 = uint32(2) * l_985;
const uint16 l_989 = shared_memory_4[l_988];
const uint32 l_990 = uint32(l_989);
const uint32 l_991 = uint32(2) * l_985;
const uint32 l_992 = l_991 + uint32(1);
const uint16 l_993 = shared_memory_4[l_992];
const uint32 l_994 = uint32(l_993);
const uint32 l_995 = l_994 << uint32(16);
const uint32 l_996 = l_990 | l_995;
buffer_2[l_987] = l_996;
}
const uint32 l_997 = uint32(256) + threadIdxGlobal;
const bool l_998 = l_997 < l_972;
if (l_998) {
const uint32 l_999 = l_971 + l_997;
const uint32 l_1000 = uint32(2) * l_997;
const uint16 l_1001 = shared_memory_4[l_1000];
const uint32 l_1002 = uint32(l_1001);
const uint32 l_1003 = uint32(2) * l_997;
const uint32 l_1004 = l_1003 + uint32(1);
const uint16 l_1005 = shared_memory_4[l_1004];
const uint32 l_1006 = uint32(l_1005);
const uint32 l_1007 = l_1006 << uint32(16);
const uint32 l_1008 = l_1002 | l_1007;
buffer_2[l_999] = l_1008;
}
const uint32 l_1009 = uint32(384) + threadIdxGlobal;
const bool l_1010 = l_1009 < l_972;
if (l_1010) {
const uint32 l_1011 = l_971 + l_1009;
const uint32 l_1012 = uint32(2) * l_1009;
const uint16 l_1013 = shared_memory_4[l_1012];
const uint32 l_1014 = uint32(l_1013);
const uint32 l_1015 = uint32(2) * l_1009;
const uint32 l_1016 = l_1015 + uint32(1);
const uint16 l_1017 = shared_memory_4[l_1016];
const uint32 l_1018 = uint32(l_1017);
const uint32 l_1019 = l_1018 << uint32(16);
const uint32 l_1020 = l_1014 | l_1019;
buffer_2[l_1011] = l_1020;
}
const uint32 l_1021 = uint32(512) + threadIdxGlobal;
const bool l_1022 = l_1021 < l_972;
if (l_1022) {
const uint32 l_1023 = l_971 + l_1021;
const uint32 l_1024 = uint32(2) * l_1021;
const uint16 l_1025 = shared_memory_4[l_1024];
const uint32 l_1026 = uint32(l_1025);
const uint32 l_1027 = uint32(2) * l_1021;
const uint32 l_1028 = l_1027 + uint32(1);
const uint16 l_1029 = shared_memory_4[l_1028];
const uint32 l_1030 = uint32(l_1029);
const uint32 l_1031 = l_1030 << uint32(16);
const uint32 l_1032 = l_1026 | l_1031;
buffer_2[l_1023] = l_1032;
}
const uint32 l_1033 = uint32(640) + threadIdxGlobal;
const bool l_1034 = l_1033 < l_972;
if (l_1034) {
const uint32 l_1035 = l_971 + l_1033;
const uint32 l_1036 = uint32(2) * l_1033;
const uint16 l_1037 = shared_memory_4[l_1036];
const uint32 l_1038 = uint32(l_1037);
const uint32 l_1039 = uint32(2) * l_1033;
const uint32 l_1040 = l_1039 + uint32(1);
const uint16 l_1041 = shared_memory_4[l_1040];
const uint32 l_1042 = uint32(l_1041);
const uint32 l_1043 = l_1042 << uint32(16);
const uint32 l_1044 = l_1038 | l_1043;
buffer_2[l_1035] = l_1044;
}
const uint32 l_1045 = uint32(768) + threadIdxGlobal;
const bool l_1046 = l_1045 < l_972;
if (l_1046) {
const uint32 l_1047 = l_971 + l_1045;
const uint32 l_1048 = uint32(2) * l_1045;
const uint16 l_1049 = shared_memory_4[l_1048];
const uint32 l_1050 = uint32(l_1049);
const uint32 l_1051 = uint32(2) * l_1045;
const uint32 l_1052 = l_1051 + uint32(1);
const uint16 l_1053 = shared_memory_4[l_1052];
const uint32 l_1054 = uint32(l_1053);
const uint32 l_1055 = l_1054 << uint32(16);
const uint32 l_1056 = l_1050 | l_1055;
buffer_2[l_1047] = l_1056;
}
const uint32 l_1057 = uint32(896) + threadIdxGlobal;
const bool l_1058 = l_1057 < l_972;
if (l_1058) {
const uint32 l_1059 = l_971 + l_1057;
const uint32 l_1060 = uint32(2) * l_1057;
const uint16 l_1061 = shared_memory_4[l_1060];
const uint32 l_1062 = uint32(l_1061);
const uint32 l_1063 = uint32(2) * l_1057;
const uint32 l_1064 = l_1063 + uint32(1);
const uint16 l_1065 = shared_memory_4[l_1064];
const uint32 l_1066 = uint32(l_1065);
const uint32 l_1067 = l_1066 << uint32(16);
const uint32 l_1068 = l_1062 | l_1067;
buffer_2[l_1059] = l_1068;
}
const uint32 l_1069 = uint32(1024) + threadIdxGlobal;
const bool l_1070 = l_1069 < l_972;
if (l_1070) {
const uint32 l_1071 = l_971 + l_1069;
const uint32 l_1072 = uint32(2) * l_1069;
const uint16 l_1073 = shared_memory_4[l_1072];
const uint32 l_1074 = uint32(l_1073);
const uint32 l_1075 = uint32(2) * l_1069;
const uint32 l_1076 = l_1075 + uint32(1);
const uint16 l_1077 = shared_memory_4[l_1076];
const uint32 l_1078 = uint32(l_1077);
const uint32 l_1079 = l_1078 << uint32(16);
const uint32 l_1080 = l_1074 | l_1079;
buffer_2[l_1071] = l_1080;
}
const uint32 l_1081 = uint32(1152) + threadIdxGlobal;
const bool l_1082 = l_1081 < l_972;
if (l_1082) {
const uint32 l_1083 = l_971 + l_1081;
const uint32 l_1084 = uint32(2) * l_1081;
const uint16 l_1085 = shared_memory_4[l_1084];
const uint32 l_1086 = uint32(l_1085);
const uint32 l_1087 = uint32(2) * l_1081;
const uint32 l_1088 = l_1087 + uint32(1);
const uint16 l_1089 = shared_memory_4[l_1088];
const uint32 l_1090 = uint32(l_1089);
const uint32 l_1091 = l_1090 << uint32(16);
const uint32 l_1092 = l_1086 | l_1091;
buffer_2[l_1083] = l_1092;
}
const uint32 l_1093 = uint32(1280) + threadIdxGlobal;
const bool l_1094 = l_1093 < l_972;
if (l_1094) {
const uint32 l_1095 = l_971 + l_1093;
const uint32 l_1096 = uint32(2) * l_1093;
const uint16 l_1097 = shared_memory_4[l_1096];
const uint32 l_1098 = uint32(l_1097);
const uint32 l_1099 = uint32(2) * l_1093;
const uint32 l_1100 = l_1099 + uint32(1);
const uint16 l_1101 = shared_memory_4[l_1100];
const uint32 l_1102 = uint32(l_1101);
const uint32 l_1103 = l_1102 << uint32(16);
const uint32 l_1104 = l_1098 | l_1103;
buffer_2[l_1095] = l_1104;
}
const uint32 l_1105 = uint32(1408) + threadIdxGlobal;
const bool l_1106 = l_1105 < l_972;
if (l_1106) {
const uint32 l_1107 = l_971 + l_1105;
const uint32 l_1108 = uint32(2) * l_1105;
const uint16 l_1109 = shared_memory_4[l_1108];
const uint32 l_1110 = uint32(l_1109);
const uint32 l_1111 = uint32(2) * l_1105;
const uint32 l_1112 = l_1111 + uint32(1);
const uint16 l_1113 = shared_memory_4[l_1112];
const uint32 l_1114 = uint32(l_1113);
const uint32 l_1115 = l_1114 << uint32(16);
const uint32 l_1116 = l_1110 | l_1115;
buffer_2[l_1107] = l_1116;
}
const uint32 l_1117 = uint32(1536) + threadIdxGlobal;
const bool l_1118 = l_1117 < l_972;
if (l_1118) {
const uint32 l_1119 = l_971 + l_1117;
const uint32 l_1120 = uint32(2) * l_1117;
const uint16 l_1121 = shared_memory_4[l_1120];
const uint32 l_1122 = uint32(l_1121);
const uint32 l_1123 = uint32(2) * l_1117;
const uint32 l_1124 = l_1123 + uint32(1);
const uint16 l_1125 = shared_memory_4[l_1124];
const uint32 l_1126 = uint32(l_1125);
const uint32 l_1127 = l_1126 << uint32(16);
const uint32 l_1128 = l_1122 | l_1127;
buffer_2[l_1119] = l_1128;
}
const uint32 l_1129 = uint32(1664) + threadIdxGlobal;
const bool l_1130 = l_1129 < l_972;
if (l_1130) {
const uint32 l_1131 = l_971 + l_1129;
const uint32 l_1132 = uint32(2) * l_1129;
const uint16 l_1133 = shared_memory_4[l_1132];
const uint32 l_1134 = uint32(l_1133);
const uint32 l_1135 = uint32(2) * l_1129;
const uint32 l_1136 = l_1135 + uint32(1);
const uint16 l_1137 = shared_memory_4[l_1136];
const uint32 l_1138 = uint32(l_1137);
const uint32 l_1139 = l_1138 << uint32(16);
const uint32 l_1140 = l_1134 | l_1139;
buffer_2[l_1131] = l_1140;
}
const uint32 l_1141 = uint32(1792) + threadIdxGlobal;
const bool l_1142 = l_1141 < l_972;
if (l_1142) {
const uint32 l_1143 = l_971 + l_1141;
const uint32 l_1144 = uint32(2) * l_1141;
const uint16 l_1145 = shared_memory_4[l_1144];
const uint32 l_1146 = uint32(l_1145);
const uint32 l_1147 = uint32(2) * l_1141;
const uint32 l_1148 = l_1147 + uint32(1);
const uint16 l_1149 = shared_memory_4[l_1148];
const uint32 l_1150 = uint32(l_1149);
const uint32 l_1151 = l_1150 << uint32(16);
const uint32 l_1152 = l_1146 | l_1151;
buffer_2[l_1143] = l_1152;
}
const uint32 l_1153 = uint32(1920) + threadIdxGlobal;
const bool l_1154 = l_1153 < l_972;
if (l_1154) {
const uint32 l_1155 = l_971 + l_1153;
const uint32 l_1156 = uint32(2) * l_1153;
const uint16 l_1157 = shared_memory_4[l_1156];
const uint32 l_1158 = uint32(l_1157);
const uint32 l_1159 = uint32(2) * l_1153;
const uint32 l_1160 = l_1159 + uint32(1);
const uint16 l_1161 = shared_memory_4[l_1160];
const uint32 l_1162 = uint32(l_1161);
const uint32 l_1163 = l_1162 << uint32(16);
const uint32 l_1164 = l_1158 | l_1163;
buffer_2[l_1155] = l_1164;
}
const uint32 l_1165 = uint32(2048) + threadIdxGlobal;
const bool l_1166 = l_1165 < l_972;
if (l_1166) {
const uint32 l_1167 = l_971 + l_1165;
const uint32 l_1168 = uint32(2) * l_1165;
const uint16 l_1169 = shared_memory_4[l_1168];
const uint32 l_1170 = uint32(l_1169);
const uint32 l_1171 = uint32(2) * l_1165;
const uint32 l_1172 = l_1171 + uint32(1);
const uint16 l_1173 = shared_memory_4[l_1172];
const uint32 l_1174 = uint32(l_1173);
const uint32 l_1175 = l_1174 << uint32(16);
const uint32 l_1176 = l_1170 | l_1175;
buffer_2[l_1167] = l_1176;
}
const uint32 l_1177 = uint32(2176) + threadIdxGlobal;
const bool l_1178 = l_1177 < l_972;
if (l_1178) {
const uint32 l_1179 = l_971 + l_1177;
const uint32 l_1180 = uint32(2) * l_1177;
const uint16 l_1181 = shared_memory_4[l_1180];
const uint32 l_1182 = uint32(l_1181);
const uint32 l_1183 = uint32(2) * l_1177;
const uint32 l_1184 = l_1183 + uint32(1);
const uint16 l_1185 = shared_memory_4[l_1184];
const uint32 l_1186 = uint32(l_1185);
const uint32 l_1187 = l_1186 << uint32(16);
const uint32 l_1188 = l_1182 | l_1187;
buffer_2[l_1179] = l_1188;
}
const uint32 l_1189 = uint32(2304) + threadIdxGlobal;
const bool l_1190 = l_1189 < l_972;
if (l_1190) {
const uint32 l_1191 = l_971 + l_1189;
const uint32 l_1192 = uint32(2) * l_1189;
const uint16 l_1193 = shared_memory_4[l_1192];
const uint32 l_1194 = uint32(l_1193);
const uint32 l_1195 = uint32(2) * l_1189;
const uint32 l_1196 = l_1195 + uint32(1);
const uint16 l_1197 = shared_memory_4[l_1196];
const uint32 l_1198 = uint32(l_1197);
const uint32 l_1199 = l_1198 << uint32(16);
const uint32 l_1200 = l_1194 | l_1199;
buffer_2[l_1191] = l_1200;
}
const uint32 l_1201 = uint32(2432) + threadIdxGlobal;
const bool l_1202 = l_1201 < l_972;
if (l_1202) {
const uint32 l_1203 = l_971 + l_1201;
const uint32 l_1204 = uint32(2) * l_1201;
const uint16 l_1205 = shared_memory_4[l_1204];
const uint32 l_1206 = uint32(l_1205);
const uint32 l_1207 = uint32(2) * l_1201;
const uint32 l_1208 = l_1207 + uint32(1);
const uint16 l_1209 = shared_memory_4[l_1208];
const uint32 l_1210 = uint32(l_1209);
const uint32 l_1211 = l_1210 << uint32(16);
const uint32 l_1212 = l_1206 | l_1211;
buffer_2[l_1203] = l_1212;
}
const uint32 l_1213 = uint32(2560) + threadIdxGlobal;
const bool l_1214 = l_1213 < l_972;
if (l_1214) {
const uint32 l_1215 = l_971 + l_1213;
const uint32 l_1216 = uint32(2) * l_1213;
const uint16 l_1217 = shared_memory_4[l_1216];
const uint32 l_1218 = uint32(l_1217);
const uint32 l_1219 = uint32(2) * l_1213;
const uint32 l_1220 = l_1219 + uint32(1);
const uint16 l_1221 = shared_memory_4[l_1220];
const uint32 l_1222 = uint32(l_1221);
const uint32 l_1223 = l_1222 << uint32(16);
const uint32 l_1224 = l_1218 | l_1223;
buffer_2[l_1215] = l_1224;
}
const uint32 l_1225 = uint32(2688) + threadIdxGlobal;
const bool l_1226 = l_1225 < l_972;
if (l_1226) {
const uint32 l_1227 = l_971 + l_1225;
const uint32 l_1228 = uint32(2) * l_1225;
const uint16 l_1229 = shared_memory_4[l_1228];
const uint32 l_1230 = uint32(l_1229);
const uint32 l_1231 = uint32(2) * l_1225;
const uint32 l_1232 = l_1231 + uint32(1);
const uint16 l_1233 = shared_memory_4[l_1232];
const uint32 l_1234 = uint32(l_1233);
const uint32 l_1235 = l_1234 << uint32(16);
const uint32 l_1236 = l_1230 | l_1235;
buffer_2[l_1227] = l_1236;
}
const uint32 l_1237 = uint32(2816) + threadIdxGlobal;
const bool l_1238 = l_1237 < l_972;
if (l_1238) {
const uint32 l_1239 = l_971 + l_1237;
const uint32 l_1240 = uint32(2) * l_1237;
const uint16 l_1241 = shared_memory_4[l_1240];
const uint32 l_1242 = uint32(l_1241);
const uint32 l_1243 = uint32(2) * l_1237;
const uint32 l_1244 = l_1243 + uint32(1);
const uint16 l_1245 = shared_memory_4[l_1244];
const uint32 l_1246 = uint32(l_1245);
const uint32 l_1247 = l_1246 << uint32(16);
const uint32 l_1248 = l_1242 | l_1247;
buffer_2[l_1239] = l_1248;
}
const uint32 l_1249 = uint32(2944) + threadIdxGlobal;
const bool l_1250 = l_1249 < l_972;
if (l_1250) {
const uint32 l_1251 = l_971 + l_1249;
const uint32 l_1252 = uint32(2) * l_1249;
const uint16 l_1253 = shared_memory_4[l_1252];
const uint32 l_1254 = uint32(l_1253);
const uint32 l_1255 = uint32(2) * l_1249;
const uint32 l_1256 = l_1255 + uint32(1);
const uint16 l_1257 = shared_memory_4[l_1256];
const uint32 l_1258 = uint32(l_1257);
const uint32 l_1259 = l_1258 << uint32(16);
const uint32 l_1260 = l_1254 | l_1259;
buffer_2[l_1251] = l_1260;
}
const uint32 l_1261 = uint32(3072) + threadIdxGlobal;
const bool l_1262 = l_1261 < l_972;
if (l_1262) {
const uint32 l_1263 = l_971 + l_1261;
const uint32 l_1264 = uint32(2) * l_1261;
const uint16 l_1265 = shared_memory_4[l_1264];
const uint32 l_1266 = uint32(l_1265);
const uint32 l_1267 = uint32(2) * l_1261;
const uint32 l_1268 = l_1267 + uint32(1);
const uint16 l_1269 = shared_memory_4[l_1268];
const uint32 l_1270 = uint32(l_1269);
const uint32 l_1271 = l_1270 << uint32(16);
const uint32 l_1272 = l_1266 | l_1271;
buffer_2[l_1263] = l_1272;
}
const uint32 l_1273 = uint32(3200) + threadIdxGlobal;
const bool l_1274 = l_1273 < l_972;
if (l_1274) {
const uint32 l_1275 = l_971 + l_1273;
const uint32 l_1276 = uint32(2) * l_1273;
const uint16 l_1277 = shared_memory_4[l_1276];
const uint32 l_1278 = uint32(l_1277);
const uint32 l_1279 = uint32(2) * l_1273;
const uint32 l_1280 = l_1279 + uint32(1);
const uint16 l_1281 = shared_memory_4[l_1280];
const uint32 l_1282 = uint32(l_1281);
const uint32 l_1283 = l_1282 << uint32(16);
const uint32 l_1284 = l_1278 | l_1283;
buffer_2[l_1275] = l_1284;
}
const uint32 l_1285 = uint32(3328) + threadIdxGlobal;
const bool l_1286 = l_1285 < l_972;
if (l_1286) {
const uint32 l_1287 = l_971 + l_1285;
const uint32 l_1288 = uint32(2) * l_1285;
const uint16 l_1289 = shared_memory_4[l_1288];
const uint32 l_1290 = uint32(l_1289);
const uint32 l_1291 = uint32(2) * l_1285;
const uint32 l_1292 = l_1291 + uint32(1);
const uint16 l_1293 = shared_memory_4[l_1292];
const uint32 l_1294 = uint32(l_1293);
const uint32 l_1295 = l_1294 << uint32(16);
const uint32 l_1296 = l_1290 | l_1295;
buffer_2[l_1287] = l_1296;
}
const uint32 l_1297 = uint32(3456) + threadIdxGlobal;
const bool l_1298 = l_1297 < l_972;
if (l_1298) {
const uint32 l_1299 = l_971 + l_1297;
const uint32 l_1300 = uint32(2) * l_1297;
const uint16 l_1301 = shared_memory_4[l_1300];
const uint32 l_1302 = uint32(l_1301);
const uint32 l_1303 = uint32(2) * l_1297;
const uint32 l_1304 = l_1303 + uint32(1);
const uint16 l_1305 = shared_memory_4[l_1304];
const uint32 l_1306 = uint32(l_1305);
const uint32 l_1307 = l_1306 << uint32(16);
const uint32 l_1308 = l_1302 | l_1307;
buffer_2[l_1299] = l_1308;
}
const uint32 l_1309 = uint32(3584) + threadIdxGlobal;
const bool l_1310 = l_1309 < l_972;
if (l_1310) {
const uint32 l_1311 = l_971 + l_1309;
const uint32 l_1312 = uint32(2) * l_1309;
const uint16 l_1313 = shared_memory_4[l_1312];
const uint32 l_1314 = uint32(l_1313);
const uint32 l_1315 = uint32(2) * l_1309;
const uint32 l_1316 = l_1315 + uint32(1);
const uint16 l_1317 = shared_memory_4[l_1316];
const uint32 l_1318 = uint32(l_1317);
const uint32 l_1319 = l_1318 << uint32(16);
const uint32 l_1320 = l_1314 | l_1319;
buffer_2[l_1311] = l_1320;
}
const uint32 l_1321 = uint32(3712) + threadIdxGlobal;
const bool l_1322 = l_1321 < l_972;
if (l_1322) {
const uint32 l_1323 = l_971 + l_1321;
const uint32 l_1324 = uint32(2) * l_1321;
const uint16 l_1325 = shared_memory_4[l_1324];
const uint32 l_1326 = uint32(l_1325);
const uint32 l_1327 = uint32(2) * l_1321;
const uint32 l_1328 = l_1327 + uint32(1);
const uint16 l_1329 = shared_memory_4[l_1328];
const uint32 l_1330 = uint32(l_1329);
const uint32 l_1331 = l_1330 << uint32(16);
const uint32 l_1332 = l_1326 | l_1331;
buffer_2[l_1323] = l_1332;
}
const uint32 l_1333 = uint32(3840) + threadIdxGlobal;
const bool l_1334 = l_1333 < l_972;
if (l_1334) {
const uint32 l_1335 = l_971 + l_1333;
const uint32 l_1336 = uint32(2) * l_1333;
const uint16 l_1337 = shared_memory_4[l_1336];
const uint32 l_1338 = uint32(l_1337);
const uint32 l_1339 = uint32(2) * l_1333;
const uint32 l_1340 = l_1339 + uint32(1);
const uint16 l_1341 = shared_memory_4[l_1340];
const uint32 l_1342 = uint32(l_1341);
const uint32 l_1343 = l_1342 << uint32(16);
const uint32 l_1344 = l_1338 | l_1343;
buffer_2[l_1335] = l_1344;
}
const uint32 l_1345 = uint32(3968) + threadIdxGlobal;
const bool l_1346 = l_1345 < l_972;
if (l_1346) {
const uint32 l_1347 = l_971 + l_1345;
const uint32 l_1348 = uint32(2) * l_1345;
const uint16 l_1349 = shared_memory_4[l_1348];
const uint32 l_1350 = uint32(l_1349);
const uint32 l_1351 = uint32(2) * l_1345;
const uint32 l_1352 = l_1351 + uint32(1);
const uint16 l_1353 = shared_memory_4[l_1352];
const uint32 l_1354 = uint32(l_1353);
const uint32 l_1355 = l_1354 << uint32(16);
const uint32 l_1356 = l_1350 | l_1355;
buffer_2[l_1347] = l_1356;
}
}
__syncthreads();

}
l_mut_901 = uint32(0);
__syncthreads();

auto plane_l_1357 = [&]() -> uint32 {
    uint32 acc = l_mut_0;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const uint32 l_1357 = plane_l_1357();
const bool l_1358 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_1358) {
const uint32 l_1359 = threadIdxGlobal / warpSize;
shared_memory_5[l_1359] = l_1357;
}
__syncthreads();

const bool l_1360 = threadIdxGlobal < warpSize;
if (l_1360) {
const uint32 l_1361 = uint32(128) + warpSize;
const uint32 l_1362 = l_1361 - uint32(1);
const uint32 l_1363 = l_1362 / warpSize;
l_mut_746 = uint32(0);
l_mut_710 = threadIdxGlobal;
while (true) {
const bool l_1364 = l_mut_710 < l_1363;
const bool l_1365 = !l_1364;
if (l_1365) {
break;}
const uint32 l_1366 = shared_memory_5[l_mut_710];
l_mut_746 = l_mut_746 + l_1366;
l_mut_710 = l_mut_710 + warpSize;
}
auto plane_l_1367 = [&]() -> uint32 {
    uint32 acc = l_mut_746;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const uint32 l_1367 = plane_l_1367();
l_mut_901 = l_1367;
}
const uint32 l_1368 = blockIdxGlobal * uint32(128);
const uint32 l_1369 = l_1368 + threadIdxGlobal;
const bool l_1370 = l_1369 < info.scalars_uint32[10];
if (l_1370) {
buffer_6[l_1369] = uint32(0);
}
const bool l_1371 = threadIdxGlobal == uint32(0);
if (l_1371) {
const uint64 l_1372 = uint64(l_mut_901);
const uint64 l_1373 = l_1372 << uint64(32);
const uint64 l_1374 = l_1373 + uint64(1);
uint64* l_1375 = &buffer_4[uint32(0)];
const uint64 l_1376 = atomicAdd(l_1375, l_1374);
const uint64 l_1377 = l_1376 + l_1374;
const uint32 l_1378 = uint32(l_1377);
const bool l_1379 = l_1378 == gridDimGlobal;
if (l_1379) {
const uint64 l_1380 = l_1377 >> uint64(32);
const uint32 l_1381 = uint32(l_1380);
buffer_2[uint32(7)] = l_1381;
}
}

}
