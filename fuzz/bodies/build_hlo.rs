//! The XLA programs of [`super::xspace`]: an `xla.HloProto` written field by
//! field from the reader's choices (the HLO types are private to the format
//! crate), with computations that call each other in cycles, operands and
//! stack frames that dangle or loop, and buffers of edge-value sizes.

use super::*;
/// One HLO module (an `xla.HloProto`) from the reader's choices.
pub fn hlo_proto(r: &mut Reader) -> Vec<u8> {
    let mut hlo = Pb::default();
    hlo.msg(1, |m| {
        m.str(1, r.pick(MODULES)).int(5, r.id()).int(6, r.id()).str(2, r.pick(COMPUTATIONS));
        for _ in 0..r.len(4) + 1 {
            m.msg(3, |c| computation(r, c));
        }
        if r.bool() {
            m.msg(17, |s| stack_frames(r, s));
        }
    });
    if r.bool() {
        hlo.msg(3, |b| buffer_assignment(r, b));
    }
    hlo.0
}

fn computation(r: &mut Reader, c: &mut Pb) {
    c.str(1, r.pick(COMPUTATIONS)).int(5, r.id()).int(6, r.id());
    for _ in 0..r.len(8) {
        c.msg(2, |i| instruction(r, i));
    }
}

fn instruction(r: &mut Reader, i: &mut Pb) {
    i.str(1, r.pick(INSTRUCTIONS)).str(2, r.pick(OPCODES)).int(35, r.id());
    i.msg(3, |s| shape(r, s, 2));
    let operands: Vec<i64> = (0..r.len(4)).map(|_| r.id()).collect();
    i.packed(36, &operands);
    let called: Vec<i64> = (0..r.len(3)).map(|_| r.id()).collect();
    i.packed(38, &called);
    match r.below(12) {
        0 => {
            i.int(9, r.amount());
        }
        1 => {
            i.str(11, r.pick(FUSION_KINDS));
        }
        2 => {
            i.int(13, r.amount());
        }
        3 => {
            i.str(28, r.pick(TARGETS));
        }
        4 => {
            i.msg(30, |d| {
                let v: Vec<i64> = (0..r.len(3)).map(|_| r.amount()).collect();
                d.packed(1, &v).packed(2, &v);
            });
        }
        5 => {
            i.msg(15, |w| {
                for _ in 0..r.len(3) {
                    w.msg(1, |d| {
                        d.int(1, r.amount()).int(2, r.amount()).int(3, r.amount()).int(5, r.amount());
                    });
                }
            });
            i.msg(16, |d| {
                d.int(7, r.amount()).int(8, r.amount()).int(3, r.amount()).int(4, r.amount());
            });
            i.int(50, r.amount()).int(58, r.amount());
        }
        6 => {
            for _ in 0..r.len(3) {
                i.msg(49, |g| {
                    let ids: Vec<i64> = (0..r.len(4)).map(|_| r.id()).collect();
                    g.packed(1, &ids);
                });
            }
            i.int(26, r.id()).int(71, r.below(2) as i64);
        }
        7 => {
            i.msg(87, |l| {
                l.msg(2, |iota| {
                    iota.int(1, r.amount()).int(2, r.amount());
                    let dims: Vec<i64> = (0..r.len(3)).map(|_| r.amount()).collect();
                    iota.packed(3, &dims).packed(4, &dims);
                });
            });
        }
        8 => {
            i.msg(8, |l| {
                l.msg(1, |s| shape(r, s, 0));
                let v: Vec<i64> = (0..r.len(4)).map(|_| r.amount()).collect();
                l.packed(5, &v);
            });
        }
        9 => {
            let dims: Vec<i64> = (0..r.len(4)).map(|_| r.amount()).collect();
            i.packed(14, &dims);
        }
        _ => {}
    }
    if r.bool() {
        i.msg(7, |m| {
            m.str(1, r.pick(OP_TYPES)).str(2, r.pick(OP_NAMES)).str(3, "model.py").int(4, r.amount());
            m.str(12, r.pick(INSTRUCTIONS)).int(15, r.id());
        });
    }
}

fn shape(r: &mut Reader, s: &mut Pb, depth: u32) {
    // 13 is TUPLE; 0..=32 covers XLA's types and some unknown ones.
    let element_type = if depth > 0 && r.below(5) == 0 { 13 } else { r.below(34) as i64 };
    s.int(2, element_type);
    let dims: Vec<i64> = (0..r.len(4)).map(|_| if r.bool() { r.u8() as i64 } else { r.amount() }).collect();
    s.packed(3, &dims);
    if element_type == 13 && depth > 0 {
        for _ in 0..r.len(3) {
            s.msg(4, |t| shape(r, t, depth - 1));
        }
    }
    if r.bool() {
        s.msg(5, |l| {
            let m: Vec<i64> = (0..dims.len()).map(|_| r.id()).collect();
            l.packed(1, &m).int(7, r.amount()).int(8, r.id());
        });
    }
}

fn stack_frames(r: &mut Reader, s: &mut Pb) {
    for name in ["model.py", "train.py", ""] {
        s.str(1, name);
    }
    for name in ["f", "<module>", "step"] {
        s.str(2, name);
    }
    for _ in 0..r.len(4) {
        s.msg(3, |l| {
            l.int(1, r.id()).int(2, r.id()).int(3, r.amount()).int(4, r.id());
        });
    }
    for _ in 0..r.len(6) {
        s.msg(4, |f| {
            f.int(1, r.id()).int(2, r.id());
        });
    }
}

fn buffer_assignment(r: &mut Reader, b: &mut Pb) {
    for _ in 0..r.len(8) {
        b.msg(1, |l| {
            l.int(1, r.id()).int(2, r.amount()).int(4, r.id());
            l.msg(3, |at| {
                at.str(2, r.pick(INSTRUCTIONS)).int(4, r.id());
                let index: Vec<i64> = (0..r.len(2)).map(|_| r.id()).collect();
                at.packed(3, &index);
            });
        });
    }
    for _ in 0..r.len(2) {
        b.msg(2, |a| {
            a.int(1, r.id());
            a.msg(2, |at| {
                at.str(2, r.pick(INSTRUCTIONS)).int(4, r.id());
            });
        });
    }
    for _ in 0..r.len(4) {
        b.msg(3, |a| {
            a.int(1, r.id()).int(2, r.amount());
            for field in [3, 11, 5, 12, 7] {
                a.int(field, r.below(2) as i64);
            }
            a.int(6, r.amount()).int(8, r.id());
            for _ in 0..r.len(4) {
                a.msg(9, |s| {
                    s.int(1, r.id()).int(2, r.amount()).int(3, r.amount());
                });
            }
        });
    }
    for _ in 0..r.len(2) {
        b.msg(4, |t| {
            for _ in 0..r.len(10) {
                t.msg(1, |e| {
                    e.int(1, r.below(4) as i64).int(2, r.id()).str(3, r.pick(COMPUTATIONS));
                    e.str(4, r.pick(INSTRUCTIONS)).int(5, r.id());
                });
            }
            t.int(2, r.below(2) as i64).int(3, r.id());
        });
    }
}
