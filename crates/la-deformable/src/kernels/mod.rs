//! Elementary local-advancement kernels: moving vertex–face, edge–edge and triangle–triangle
//! pairs under linear vertex motion (LA Sec. V, Lemmas 1–3).
