//! The shared-memory file the client and the server's children share, and our mapping of it.

use std::fs::OpenOptions;
use std::path::PathBuf;

use anyhow::Context;
use memmap2::MmapMut;

use super::{ForkServerConfig, EXAMPLE_CAPACITY, LABEL_CAPACITY};
use crate::protocol::Layout;

/// The shared-memory file and our mapping of it.
#[derive(Debug)]
pub(super) struct SharedMemory {
    pub(super) path: PathBuf,
    pub(super) map: MmapMut,
    pub(super) layout: Layout,
}

impl SharedMemory {
    pub(super) fn create(path: PathBuf, input_capacity: u32, config: &ForkServerConfig) -> anyhow::Result<Self> {
        let layout = Layout {
            input_capacity,
            example_capacity: EXAMPLE_CAPACITY,
            label_capacity: LABEL_CAPACITY,
            feature_capacity: config.feature_capacity,
            known_capacity: if config.feature_capacity > 0 { 0 } else { config.known_capacity },
            chain_capacity: if config.feature_capacity > 0 { 0 } else { super::CHAIN_CAPACITY },
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot create the shared-memory file {}", path.display()))?;
        file.set_len(layout.total_len() as u64)
            .with_context(|| format!("cannot size the shared-memory file {}", path.display()))?;
        // SAFETY: the file is ours, in a private scratch directory; only the
        // server and its children map it, and the protocol orders who touches
        // which bytes when. Its size never changes while it is mapped.
        let mut map = unsafe { MmapMut::map_mut(&file) }
            .with_context(|| format!("cannot map the shared-memory file {}", path.display()))?;
        layout.write_header(&mut map);
        Ok(SharedMemory { path, map, layout })
    }
}
