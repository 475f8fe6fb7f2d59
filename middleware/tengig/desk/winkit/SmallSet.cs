using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Microsoft.Win32.SafeHandles;

namespace TengigKit
{
    // The small-file test's files of one size, held in memory (random bytes: nothing on the way can shrink
    // them), and its batches: each file's calls timed apart (Stopwatch), as tengig client join's own timer
    // times them, one line per file in the form the NAS reads (bench/parse/smallfiles_parse.py), each
    // with the seconds of the batch's clock in front, '.' for the point whatever the desktop's language.
    // write: .NET's FileStream with no buffer of its own (Platform.Create: made afresh), so its
    // Write goes to the system at once, cached as an application's write is; its close is Dispose.
    // read: on Windows kernel32's CreateFile with FILE_FLAG_NO_BUFFERING and one ReadFile of size + 1 into
    // aligned memory, so it comes from the share (or the disk), not from what Windows kept of the write;
    // elsewhere a FileStream read. stat: .NET's FileInfo.Length. delete: kernel32's DeleteFile, which fails
    // on a file that is not there (File.Delete says nothing then); elsewhere File.Delete after a check.
    public sealed class SmallSet
    {
        private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;
        public readonly int Size;
        public readonly int Count;
        private readonly byte[][] data;

        public SmallSet(int size, int count)
        {
            Size = size;
            Count = count;
            data = new byte[count][];
            using (RandomNumberGenerator generator = RandomNumberGenerator.Create())
            {
                for (int i = 0; i < count; i++)
                {
                    data[i] = new byte[size];
                    generator.GetBytes(data[i]);
                }
            }
        }

        public static string Name(int i)
        {
            return string.Format(Invariant, "f{0:D5}.bin", i);
        }

        // A line as the NAS reads it: the seconds since the batch's clock started, then the line.
        public static string Stamp(Stopwatch clock, string line)
        {
            return string.Format(Invariant, "{0:0.000000} {1}", clock.Elapsed.TotalSeconds, line);
        }

        // A file's line as the NAS reads it (without the time in front).
        public static string FileLine(string timer, string name, long moved, double open, double io, double close)
        {
            return string.Format(Invariant, "{0}: file {1} {2} open={3:0.000000} io={4:0.000000} close={5:0.000000}",
                timer, name, moved, open, io, close);
        }

        private static IOException Failed(string path)
        {
            return new IOException(path + ": " + new Win32Exception(Marshal.GetLastWin32Error()).Message);
        }

        private static double Lap(Stopwatch clock)
        {
            double seconds = clock.Elapsed.TotalSeconds;
            clock.Restart();
            return seconds;
        }

        // The op on the files from first on, in directory, until budgetMs have passed (the kit looks at
        // the NAS's connection in between) or every file is done; each file's line added to lines. The
        // index of the next file.
        public int Run(string timer, string op, string directory, int first, long budgetMs, Stopwatch batch,
            List<string> lines)
        {
            if (op != "write" && op != "read" && op != "stat" && op != "delete")
            {
                throw new ArgumentException("op: " + op + " is not write, read, stat or delete");
            }
            Stopwatch spent = Stopwatch.StartNew();
            int i = first;
            using (AlignedBuffer buffer = op == "read" && Platform.Windows ? new AlignedBuffer(Size + 1) : null)
            {
                byte[] plain = op == "read" && !Platform.Windows ? new byte[Size + 1] : null;
                for (; i < Count && (i == first || spent.ElapsedMilliseconds < budgetMs); i++)
                {
                    string name = Name(i);
                    string path = Path.Combine(directory, name);
                    double open = 0, io = 0, close = 0;
                    long moved = Size;
                    Stopwatch clock = Stopwatch.StartNew();
                    if (op == "write")
                    {
                        FileStream stream = Platform.Create(path, FileShare.Read, FileOptions.None);
                        open = Lap(clock);
                        try
                        {
                            stream.Write(data[i], 0, Size);
                            io = Lap(clock);
                        }
                        finally
                        {
                            stream.Dispose();
                            close = Lap(clock);
                        }
                    }
                    else if (op == "read" && buffer != null)
                    {
                        SafeFileHandle handle = Kernel32.CreateFile(path, Kernel32.GenericRead, Kernel32.ShareRead,
                            IntPtr.Zero, Kernel32.OpenExisting, Kernel32.NoBuffering | Kernel32.SequentialScan, IntPtr.Zero);
                        if (handle.IsInvalid)
                        {
                            throw Failed(path);
                        }
                        open = Lap(clock);
                        try
                        {
                            uint got;
                            if (!Kernel32.ReadFile(handle, buffer.Aligned, (uint)buffer.Capacity, out got, IntPtr.Zero))
                            {
                                throw Failed(path);
                            }
                            moved = got;
                            io = Lap(clock);
                        }
                        finally
                        {
                            handle.Dispose();
                            close = Lap(clock);
                        }
                    }
                    else if (op == "read")
                    {
                        FileStream stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1);
                        open = Lap(clock);
                        try
                        {
                            moved = stream.Read(plain, 0, plain.Length);
                            io = Lap(clock);
                        }
                        finally
                        {
                            stream.Dispose();
                            close = Lap(clock);
                        }
                    }
                    else if (op == "stat")
                    {
                        moved = new FileInfo(path).Length;
                        open = Lap(clock);
                    }
                    else if (Platform.Windows)
                    {
                        if (!Kernel32.DeleteFile(path))
                        {
                            throw Failed(path);
                        }
                        open = Lap(clock);
                    }
                    else
                    {
                        if (!File.Exists(path))
                        {
                            throw new FileNotFoundException(path + ": there is no such file to delete", path);
                        }
                        File.Delete(path);
                        open = Lap(clock);
                    }
                    lines.Add(Stamp(batch, FileLine(timer, name, moved, open, io, close)));
                }
            }
            return i;
        }
    }
}
