-- tta database schema: the algorithm of each profiled convolution (docs/replay.md "Winograd
-- convolutions"). The cpu backend runs a 3x3 convolution of stride 1 as Winograd on AVX-512 hosts
-- where oneDNN has the kernel; its row's flops stay the direct convolution's (the model's FLOPs),
-- so its gflops can pass the SGEMM peak, and this column says why.
ALTER TABLE profile_layers ADD COLUMN algorithm TEXT; -- "direct", "winograd", "winograd backward", ...; NULL where the backend has one algorithm for the layer (not a convolution, another backend, or a profile stored before this column)
