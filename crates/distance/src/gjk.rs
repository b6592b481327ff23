//! GJK distance between convex hulls under rigid poses, with witness points.
