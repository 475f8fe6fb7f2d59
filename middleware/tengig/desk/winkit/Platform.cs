using System;
using System.IO;

namespace TengigKit
{
    // Where the kit runs: Windows (kernel32, job objects, the console's close) or not (the lab's Linux, where
    // the same C# uses .NET's plain file I/O and no job object).
    public static class Platform
    {
        public static bool Windows
        {
            get { return Environment.OSVersion.Platform == PlatformID.Win32NT; }
        }

        // A file made afresh for writing (an older one of that name replaced). Where not Windows, .NET makes
        // FileMode.Create's file with open(O_CREAT), takes its lock, then truncates it with ftruncate, which
        // a FUSE mount of the share may not do (smbnetfs answers EIO, found on the lab): there an older file
        // is deleted first and the new one made with CreateNew (O_CREAT|O_EXCL), never truncated.
        public static FileStream Create(string path, FileShare share, FileOptions options)
        {
            if (Windows)
            {
                return new FileStream(path, FileMode.Create, FileAccess.Write, share, 1, options);
            }
            if (File.Exists(path))
            {
                File.Delete(path);
            }
            return new FileStream(path, FileMode.CreateNew, FileAccess.Write, share, 1, options);
        }
    }
}
