// Placeholder so the module builds; its issue fills it in.
