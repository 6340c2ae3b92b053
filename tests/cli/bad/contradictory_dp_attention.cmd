--tp-size
4
--dp-size
3
--enable-dp-attention
