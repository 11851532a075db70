//! What a frame is drawn into and what it drew: the pixel buffer the
//! boxes are written to, and the boxes big enough to click (for the test hook).

/// RGBA pixels for the whole canvas.
#[derive(Default)]
pub struct Surface {
    pub pixels: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

impl Surface {
    pub fn resize(&mut self, width: u32, height: u32) {
        self.width = width;
        self.height = height;
        self.pixels.resize(width as usize * height as usize * 4, 0);
    }

    pub fn clear(&mut self, c: [u8; 3]) {
        let rgba = [c[0], c[1], c[2], 255];
        for px in self.pixels.chunks_exact_mut(4) {
            px.copy_from_slice(&rgba);
        }
    }

    /// Fills `[x0, x1) × [y0, y1)` (device pixels, clipped).
    pub fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3]) {
        self.fill_with(x0, y0, x1, y1, c, None);
    }

    /// Fills with `c`, every fourth diagonal in `hatch` when given.
    pub fn fill_with(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3], hatch: Option<[u8; 3]>) {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let (x0, x1) = (x0.clamp(0, w) as usize, x1.clamp(0, w) as usize);
        let (y0, y1) = (y0.clamp(0, h) as usize, y1.clamp(0, h) as usize);
        if x0 >= x1 || y0 >= y1 {
            return;
        }
        let w = self.width as usize;
        let rgba = [c[0], c[1], c[2], 255];
        for y in y0..y1 {
            let row = &mut self.pixels[(y * w + x0) * 4..(y * w + x1) * 4];
            match hatch {
                None => row.chunks_exact_mut(4).for_each(|px| px.copy_from_slice(&rgba)),
                Some(d) => {
                    let dark = [d[0], d[1], d[2], 255];
                    for (i, px) in row.chunks_exact_mut(4).enumerate() {
                        px.copy_from_slice(if (x0 + i + y) % 4 == 0 { &dark } else { &rgba });
                    }
                }
            }
        }
    }
}

/// A box drawn in the last frame (CSS pixels within the canvas).
#[derive(Debug, Clone)]
pub struct Drawn {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub track: u32,
    pub event: u32,
    pub name: u32,
}
