//! Scene queries: the two-layer hybrid BVH (LA Sec. VI) over deforming meshes, inter-object
//! and self-collision, global ToC, all ToCs and Boolean mode.
