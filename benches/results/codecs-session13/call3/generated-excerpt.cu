// Excerpt of cubecl.log (CUBECL_DEBUG_LOG) from session 13 call 3: the 16-bit ZVC compress
// kernel with call 2's plane chunks. Line 149 of the full log opened the f32 kernel; this is
// the u16-staging one. Note l_739: 2 * UNIT_POS_PLANE printed as 'uint32(2) * uint32(idxGlobal) % warpSize'.
extern "C" __global__ void __launch_bounds__(64)zvc_compress_n_4_s_u16_d_u64 (
// ...

l_mut_366 = uint32(0);
l_mut_697 = uint32(0);
l_mut_698 = uint32(0);
l_mut_699 = uint32(0);
const uint32 l_701 = threadIdxGlobal / uint32(32);
const uint32 l_702 = l_701 * uint32(1024);
const bool l_703 = l_701 < uint32(2);
const bool l_704 = l_12 && l_703;
if (l_704) {
const uint32 l_705 = l_11 * uint32(2048);
const uint32 l_706 = l_705 + l_702;
l_mut_707 = uint32(0);
l_mut_708 = uint32(0);
l_mut_709 = uint32(0);

for (uint32 l_mut_710 = uint32(0); l_mut_710 < uint32(32); ++l_mut_710) {
const uint32 l_711 = l_mut_710 * uint32(32);
const uint32 l_712 = l_702 + l_711;
const uint32 l_713 = l_712 + uint32(idxGlobal) % warpSize;
const uint32 l_714 = l_713 / uint32(32);
const uint32 l_715 = l_713 + l_714;
const uint32 l_716 = shared_memory_3[l_715];
const uint32 l_717 = l_mut_710 * uint32(32);
const uint32 l_718 = l_706 + l_717;
const uint32 l_719 = l_718 + uint32(idxGlobal) % warpSize;
const uint32 l_720 = uint32(2) * l_719;
const uint32 l_721 = l_716 & uint32(65535);
const bool l_722 = l_721 != uint32(0);
const bool l_723 = l_720 < info.scalars_uint32[0];
const bool l_724 = l_722 && l_723;
const uint32 l_725 = l_716 >> uint32(16);
const bool l_726 = l_725 != uint32(0);
const uint32 l_727 = l_720 + uint32(1);
const bool l_728 = l_727 < info.scalars_uint32[0];
const bool l_729 = l_726 && l_728;

const uint32_4 l_730 = { __ballot_sync(-1, l_724), 0, 0, 0 };
const uint32 l_731 = l_730.i_0;

const uint32_4 l_732 = { __ballot_sync(-1, l_729), 0, 0, 0 };
const uint32 l_733 = l_732.i_0;
const uint32 l_734 = uint32(__popc(l_731));
const uint32 l_735 = uint32(__popc(l_733));
const uint32 l_736 = l_734 + l_735;
l_mut_707 = l_mut_707 + l_736;
const bool l_737 = l_mut_710 == uint32(idxGlobal) % warpSize;
if (l_737) {
l_mut_708 = l_731;
l_mut_709 = l_733;
}
}
const uint32 l_738 = l_706 / uint32(16);
const uint32 l_739 = uint32(2) * uint32(idxGlobal) % warpSize;
const uint32 l_740 = l_738 + l_739;
const bool l_741 = l_740 < l_2;
if (l_741) {
const uint32 l_742 = info.scalars_uint32[6] + l_740;
const uint32 l_743 = l_mut_708 & uint32(65535);
const uint32 l_744 = l_743 & uint32(65535);
l_mut_745 = l_744;
const uint32 l_746 = l_mut_745 << uint32(8);
const uint32 l_747 = l_mut_745 | l_746;
const uint32 l_748 = l_747 & uint32(16711935);
// ...
