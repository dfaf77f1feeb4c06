package io.shipstream.failover.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * What tells that a mounted file changed, read through its symbolic links: a Secret volume
 * replaces its files by swapping a link to a new directory, so the file key (the inode) changes
 * even when the modification time is coarse or copied over.
 */
record FileStamp(Object key, FileTime modified, long size) {
  static FileStamp of(Path file) throws IOException {
    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
    return new FileStamp(a.fileKey(), a.lastModifiedTime(), a.size());
  }
}
