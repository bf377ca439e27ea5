// Pad probe (2026-11-30): constant, edge and symmetric pads of W7's shape ((8,64,128,128)
// float32 by 3 on both sides of H and W) on the same source and destination buffers, each
// run 3 times in turn for 20 rounds; medians and minima. Argument 1: threads; argument 2:
// the destination's offset from a 4 KiB boundary, in floats; argument 3 (optional): the
// entry to force (PadDesc::impl, e.g. pad.lines_vec; default: the automatic choice).
// Build (from the repository root, after scripts/bench.sh built build/bench):
//   g++ -O2 -std=c++20 -Iinclude -Ibuild/bench/include -o /tmp/pad_modes_probe \
//     bench/probes/pad_modes_probe.cc build/bench/libgridops.a \
//     -fopenmp -ltbb -lhwy -lpthread
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "gridops/gridops.h"
#include "gridops/parallel.h"
static double now(){return std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main(int argc,char**argv){
  gridops::set_num_threads(atoi(argv[1]));
  int64_t off=argc>2?atoi(argv[2]):0;
  std::vector<int64_t> ss={8,64,128,128}, ds={8,64,134,134};
  size_t sn=8*64*128*128, dn=8*64*134*134;
  float* src=(float*)aligned_alloc(4096,sn*4+8192); float* dst=(float*)aligned_alloc(4096,dn*4+8192);
  for(size_t i=0;i<sn+1024;i++) src[i]=(float)(i%977); memset(dst,0,dn*4+4096);
  float* s=src; float* d=dst+off;
  gridops::TensorView sv(gridops::DType::kFloat32,s,ss);
  gridops::MutableTensorView dv(gridops::DType::kFloat32,d,ds);
  std::vector<gridops::PadMode> modes={gridops::PadMode::kConstant,gridops::PadMode::kEdge,gridops::PadMode::kSymmetric};
  std::vector<gridops::PadPlan> plans;
  const char* impl=argc>3?argv[3]:"";
  for(auto m:modes){gridops::PadDesc desc; desc.mode=m; desc.impl=impl; desc.pads_begin={0,0,3,3}; desc.pads_end={0,0,3,3}; plans.push_back(*gridops::make_pad_plan(desc,gridops::DType::kFloat32,ss));}
  std::vector<std::vector<double>> t(modes.size());
  for(int r=0;r<20;r++) for(size_t m=0;m<modes.size();m++) for(int q=0;q<3;q++){double a=now(); if(!plans[m].run(sv,dv,nullptr).ok())abort(); t[m].push_back(now()-a);}
  const char* nm[]={"constant","edge","symmetric"};
  for(size_t m=0;m<modes.size();m++){auto&x=t[m]; std::sort(x.begin(),x.end()); printf("%s %s: med %.3f min %.3f\n",nm[m],plans[m].impl_name(),x[x.size()/2],x[0]);}
}
