//! Mesh file IO (feature `io`): OBJ, STL (binary and ASCII) and PLY readers, an OBJ writer.
//!
//! Every reader returns [`GeometryError::Parse`](crate::GeometryError::Parse) for a
//! malformed file, naming the path and, for text formats, the line where known; none panics.
