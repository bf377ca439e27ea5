// Gathers against scalar loads of the same elements, from L1: 4096 random offsets into a
// 64 KiB plane, four accumulators. Build: gcc -O2 -mavx512f -mavx512dq -mavx2 -mfma.
// Prints ns per 8 pairs, per 8 floats and per 16 pairs (the AVX-512 case).
#include <immintrin.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
float buf[1<<14];
int32_t offs[4096];
int main(){
  for(int i=0;i<(1<<14);i++) buf[i]=i*0.5f;
  srand(1); for(int i=0;i<4096;i++) offs[i]=rand()%((1<<14)-2);
  const int R=20000; double t; __m256 accs[4]={0}; __m512 acc5s[4]={0};
  // 1. vgatherqpd ymm (4 pairs) x2 = 8 pairs
  t=now();
  for(int r=0;r<R;r++) for(int i=0;i<4096;i+=8){
    __m256i o=_mm256_loadu_si256((__m256i*)(offs+i));
    __m256i lo=_mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(o)),2);
    __m256i hi=_mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(o,1)),2);
    __m256d g0=_mm256_i64gather_pd((const double*)buf,lo,1);
    __m256d g1=_mm256_i64gather_pd((const double*)buf,hi,1);
    accs[(i>>3)&3]=_mm256_add_ps(accs[(i>>3)&3],_mm256_add_ps(_mm256_castpd_ps(g0),_mm256_castpd_ps(g1)));
  }
  double a=(now()-t)/(R*512.0)*1e9; 
  // 2. scalar loads 8 pairs
  t=now();
  for(int r=0;r<R;r++) for(int i=0;i<4096;i+=8){
    const int32_t*o=offs+i; const float*p=buf;
    __m128d x01=_mm_loadh_pd(_mm_load_sd((const double*)(p+o[0])),(const double*)(p+o[1]));
    __m128d x45=_mm_loadh_pd(_mm_load_sd((const double*)(p+o[4])),(const double*)(p+o[5]));
    __m128d x23=_mm_loadh_pd(_mm_load_sd((const double*)(p+o[2])),(const double*)(p+o[3]));
    __m128d x67=_mm_loadh_pd(_mm_load_sd((const double*)(p+o[6])),(const double*)(p+o[7]));
    __m256 y0=_mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(x01),x45,1));
    __m256 y1=_mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(x23),x67,1));
    accs[(i>>3)&3]=_mm256_add_ps(accs[(i>>3)&3],_mm256_add_ps(_mm256_shuffle_ps(y0,y1,0x88),_mm256_shuffle_ps(y0,y1,0xdd)));
  }
  double b=(now()-t)/(R*512.0)*1e9;
  // 3. vgatherdps ymm (8 floats)
  t=now();
  for(int r=0;r<R;r++) for(int i=0;i<4096;i+=8){
    __m256i o=_mm256_loadu_si256((__m256i*)(offs+i));
    accs[(i>>3)&3]=_mm256_add_ps(accs[(i>>3)&3],_mm256_i32gather_ps(buf,o,4));
  }
  double c=(now()-t)/(R*512.0)*1e9;
  // 4. 8 scalar float loads
  t=now();
  for(int r=0;r<R;r++) for(int i=0;i<4096;i+=8){
    const int32_t*o=offs+i; const float*p=buf;
    __m128 l=_mm_insert_ps(_mm_insert_ps(_mm_insert_ps(_mm_load_ss(p+o[0]),_mm_load_ss(p+o[1]),0x10),_mm_load_ss(p+o[2]),0x20),_mm_load_ss(p+o[3]),0x30);
    __m128 h=_mm_insert_ps(_mm_insert_ps(_mm_insert_ps(_mm_load_ss(p+o[4]),_mm_load_ss(p+o[5]),0x10),_mm_load_ss(p+o[6]),0x20),_mm_load_ss(p+o[7]),0x30);
    accs[(i>>3)&3]=_mm256_add_ps(accs[(i>>3)&3],_mm256_insertf128_ps(_mm256_castps128_ps256(l),h,1));
  }
  double d=(now()-t)/(R*512.0)*1e9;
  // 5. zmm i32gather_pd (8 pairs)
  t=now();
  for(int r=0;r<R;r++) for(int i=0;i<4096;i+=16){
    __m512i o=_mm512_loadu_si512((offs+i));
    __m512d g0=_mm512_i32gather_pd(_mm512_castsi512_si256(o),(const double*)buf,4);
    __m512d g1=_mm512_i32gather_pd(_mm512_extracti64x4_epi64(o,1),(const double*)buf,4);
    acc5s[(i>>4)&3]=_mm512_add_ps(acc5s[(i>>4)&3],_mm512_add_ps(_mm512_castpd_ps(g0),_mm512_castpd_ps(g1)));
  }
  double e=(now()-t)/(R*256.0)*1e9;
  __m256 acc=_mm256_add_ps(_mm256_add_ps(accs[0],accs[1]),_mm256_add_ps(accs[2],accs[3]));__m512 acc5=_mm512_add_ps(_mm512_add_ps(acc5s[0],acc5s[1]),_mm512_add_ps(acc5s[2],acc5s[3]));float s[16]; _mm256_storeu_ps(s,acc); float s5[16]; _mm512_storeu_ps(s5,acc5);
  printf("per 8 pairs: 2x vgatherqpd ymm %.2f ns, scalar pair loads %.2f ns | per 8 floats: vgatherdps ymm %.2f ns, scalar %.2f ns | per 16 pairs 2x zmm i32gather_pd %.2f ns (%g %g)\n",a,b,c,d,e,s[0],s5[0]);
}
