//! Convex hulls (quickhull), robust to coplanar and duplicate points.
