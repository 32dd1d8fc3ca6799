package gpu

// MemInfo returns the device's free and total memory now (cudaMemGetInfo). total − free
// is what every process holds on the device, this backend's resident keys, shapes and
// cached scratch pool included: the figure to watch for peak GPU memory. It takes no lock
// and may be called from any goroutine while the device proves.
func (b *Backend) MemInfo() (free, total uint64, err error) {
	free, total, err = b.lib.MemInfo(b.device)
	return free, total, wrap("memory info", err)
}
