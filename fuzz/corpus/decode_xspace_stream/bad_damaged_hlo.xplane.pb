
J/host:metadata"#jit_f*2ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*	Hlo Proto