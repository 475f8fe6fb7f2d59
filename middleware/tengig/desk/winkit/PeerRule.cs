using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net;

namespace TengigKit
{
    // A mesh verify's cable between two desktops (desk/peer_rule.py's rule): the kit connects only to a
    // host on a subnet of /NarrowestPrefix or narrower that one of this desktop's IPv4 addresses is on (its
    // own cable), never to that subnet's network or broadcast address. attached: each of this desktop's
    // IPv4 addresses as "address/prefix" (a /32 attaches no subnet; anything unreadable is skipped).
    public static class PeerRule
    {
        private static uint Bits(IPAddress address)
        {
            byte[] b = address.GetAddressBytes();
            return ((uint)b[0] << 24) | ((uint)b[1] << 16) | ((uint)b[2] << 8) | b[3];
        }

        private static string Dotted(uint bits)
        {
            return string.Join(".", new string[] { (bits >> 24).ToString(CultureInfo.InvariantCulture),
                ((bits >> 16) & 255).ToString(CultureInfo.InvariantCulture),
                ((bits >> 8) & 255).ToString(CultureInfo.InvariantCulture),
                (bits & 255).ToString(CultureInfo.InvariantCulture) });
        }

        // null when address is a host on one of this desktop's own cables, else why not (for the NAS).
        public static string Refusal(string address, string[] attached, int narrowestPrefix)
        {
            IPAddress target;
            if (!IPAddress.TryParse(address, out target) ||
                target.AddressFamily != System.Net.Sockets.AddressFamily.InterNetwork)
            {
                return address + " is not an IPv4 address";
            }
            uint t = Bits(target);
            List<string> near = new List<string>();
            foreach (string cidr in attached ?? new string[0])
            {
                string[] parts = (cidr ?? "").Split('/');
                IPAddress own;
                int prefix;
                if (parts.Length != 2 || !IPAddress.TryParse(parts[0], out own) ||
                    own.AddressFamily != System.Net.Sockets.AddressFamily.InterNetwork ||
                    !int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out prefix) ||
                    prefix < narrowestPrefix || prefix > 31)
                {
                    continue;
                }
                uint mask = uint.MaxValue << (32 - prefix);
                uint network = Bits(own) & mask;
                string subnet = Dotted(network) + "/" + prefix.ToString(CultureInfo.InvariantCulture);
                if (!near.Contains(subnet))
                {
                    near.Add(subnet);
                }
                if ((t & mask) != network)
                {
                    continue;
                }
                if (prefix < 31 && (t == network || t == (network | ~mask)))
                {
                    return address + " is the network or broadcast address of " + subnet + ", not a host on it";
                }
                return null;
            }
            return address + " is not on a subnet of /" + narrowestPrefix.ToString(CultureInfo.InvariantCulture) +
                " or narrower that one of this desktop's interfaces is directly attached to (" +
                (near.Count > 0 ? string.Join(", ", near.ToArray()) : "none") +
                "): towards another desktop, tengig only uses this desktop's own cables";
        }
    }
}
