--gpu-memory
80GiB
--available-bytes
50GiB
