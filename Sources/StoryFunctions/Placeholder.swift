// Placeholder so the package builds; replaced as the module grows.
