using System;
using System.ComponentModel;
using System.IO;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Microsoft.Win32.SafeHandles;

namespace TengigKit
{
    // kernel32's unbuffered file calls (Windows); where not Windows, .NET's plain FileStream, a file's cached
    // pages dropped before it is read (Libc).
    internal static class Kernel32
    {
        [DllImport("kernel32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
        public static extern SafeFileHandle CreateFile(string name, uint access, uint share, IntPtr security,
            uint disposition, uint flags, IntPtr template);

        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool ReadFile(SafeFileHandle handle, IntPtr buffer, uint count, out uint read,
            IntPtr overlapped);

        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool WriteFile(SafeFileHandle handle, IntPtr buffer, uint count, out uint written,
            IntPtr overlapped);

        [DllImport("kernel32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
        public static extern bool DeleteFile(string name);

        public const uint GenericRead = 0x80000000;
        public const uint GenericWrite = 0x40000000;
        public const uint ShareRead = 1;
        public const uint CreateAlways = 2;
        public const uint OpenExisting = 3;
        public const uint NoBuffering = 0x20000000;  // FILE_FLAG_NO_BUFFERING
        public const uint SequentialScan = 0x08000000;
        public const uint WriteThrough = 0x80000000;  // FILE_FLAG_WRITE_THROUGH
    }

    // Linux's posix_fadvise: where not Windows, a file's pages this system holds are dropped before it is
    // read, so the read comes from the disk or the share, as FILE_FLAG_NO_BUFFERING's does on Windows (the
    // lab found -Disk's read at 19 GB/s, from memory, beside fio's 1.5 GB/s with O_DIRECT).
    internal static class Libc
    {
        [DllImport("libc", SetLastError = true)]
        private static extern int posix_fadvise(int fd, long offset, long length, int advice);

        private const int DontNeed = 4;  // POSIX_FADV_DONTNEED

        // True when the pages were dropped (false where the system has no such call, as macOS).
        public static bool DropCached(FileStream stream)
        {
            try
            {
                return posix_fadvise(stream.SafeFileHandle.DangerousGetHandle().ToInt32(), 0, 0, DontNeed) == 0;
            }
            catch (EntryPointNotFoundException)
            {
                return false;
            }
            catch (DllNotFoundException)
            {
                return false;
            }
        }
    }

    // The share's file (or -Disk's) read with FILE_FLAG_NO_BUFFERING into aligned memory and dropped.
    public sealed class UnbufferedReader : IDisposable
    {
        public const int ChunkBytes = 4194304;
        private readonly SafeFileHandle handle;
        private readonly FileStream stream;
        private readonly AlignedBuffer buffer;
        private readonly byte[] plain;

        public UnbufferedReader(string path)
        {
            if (Platform.Windows)
            {
                handle = Kernel32.CreateFile(path, Kernel32.GenericRead, Kernel32.ShareRead, IntPtr.Zero,
                    Kernel32.OpenExisting, Kernel32.NoBuffering | Kernel32.SequentialScan, IntPtr.Zero);
                if (handle.IsInvalid)
                {
                    throw new Win32Exception();
                }
                buffer = new AlignedBuffer(ChunkBytes);
            }
            else
            {
                stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.SequentialScan);
                Libc.DropCached(stream);
                plain = new byte[ChunkBytes];
            }
        }

        // Up to limit bytes read (and dropped); 0 at the end of the file.
        public long Read(long limit)
        {
            long total = 0;
            while (total < limit)
            {
                long got;
                if (stream != null)
                {
                    got = stream.Read(plain, 0, ChunkBytes);
                }
                else
                {
                    uint read;
                    if (!Kernel32.ReadFile(handle, buffer.Aligned, (uint)ChunkBytes, out read, IntPtr.Zero))
                    {
                        throw new Win32Exception();
                    }
                    got = read;
                }
                if (got == 0)
                {
                    break;
                }
                total += got;
            }
            return total;
        }

        public void Dispose()
        {
            if (stream != null)
            {
                stream.Dispose();
            }
            if (handle != null)
            {
                handle.Dispose();
            }
            if (buffer != null)
            {
                buffer.Dispose();
            }
        }
    }

    // A new file written with FILE_FLAG_NO_BUFFERING and FILE_FLAG_WRITE_THROUGH from aligned memory that
    // holds random bytes (nothing on the way can shrink them); where not Windows, a FileStream with
    // FileOptions.WriteThrough.
    public sealed class UnbufferedWriter : IDisposable
    {
        public const int ChunkBytes = 4194304;
        private readonly SafeFileHandle handle;
        private readonly FileStream stream;
        private readonly AlignedBuffer buffer;
        private readonly byte[] random = new byte[ChunkBytes];

        public UnbufferedWriter(string path)
        {
            using (RandomNumberGenerator generator = RandomNumberGenerator.Create())
            {
                generator.GetBytes(random);
            }
            if (Platform.Windows)
            {
                handle = Kernel32.CreateFile(path, Kernel32.GenericWrite, 0, IntPtr.Zero, Kernel32.CreateAlways,
                    Kernel32.NoBuffering | Kernel32.WriteThrough, IntPtr.Zero);
                if (handle.IsInvalid)
                {
                    throw new Win32Exception();
                }
                buffer = new AlignedBuffer(ChunkBytes);
                Marshal.Copy(random, 0, buffer.Aligned, ChunkBytes);
            }
            else
            {
                stream = Platform.Create(path, FileShare.None, FileOptions.WriteThrough);
            }
        }

        // limit bytes written (a multiple of 4096, as unbuffered writes must be).
        public void Write(long limit)
        {
            long total = 0;
            while (total < limit)
            {
                int count = (int)Math.Min((long)ChunkBytes, limit - total);
                if (stream != null)
                {
                    stream.Write(random, 0, count);
                    total += count;
                    continue;
                }
                uint wrote;
                if (!Kernel32.WriteFile(handle, buffer.Aligned, (uint)count, out wrote, IntPtr.Zero))
                {
                    throw new Win32Exception();
                }
                total += wrote;
            }
            if (stream != null)
            {
                stream.Flush(true);
            }
        }

        public void Dispose()
        {
            if (stream != null)
            {
                stream.Dispose();
            }
            if (handle != null)
            {
                handle.Dispose();
            }
            if (buffer != null)
            {
                buffer.Dispose();
            }
        }
    }

    // Memory aligned for unbuffered I/O (FILE_FLAG_NO_BUFFERING): Capacity bytes, a multiple of 4096, at
    // least what was asked.
    public sealed class AlignedBuffer : IDisposable
    {
        private const int Alignment = 4096;
        private readonly IntPtr memory;
        public readonly IntPtr Aligned;
        public readonly int Capacity;

        public AlignedBuffer(int bytes)
        {
            Capacity = (bytes + Alignment - 1) / Alignment * Alignment;
            memory = Marshal.AllocHGlobal(Capacity + Alignment);
            Aligned = new IntPtr((memory.ToInt64() + Alignment - 1) & ~(long)(Alignment - 1));
        }

        public void Dispose()
        {
            Marshal.FreeHGlobal(memory);
        }
    }
}
